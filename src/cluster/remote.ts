import type { RemoteSessions } from '../sessions/remote-sessions.js';
import type { ClusterHub } from './cluster-hub.js';

/** The web UI's way to the hub's nodes (the hub may not be up yet when the web UI starts: none until it is). */
export function hubRemoteSessions(current: () => ClusterHub | null): RemoteSessions {
  const hub = () => {
    const joined = current();
    if (!joined) throw new Error('the cluster is not joined yet: try again in a moment');
    return joined;
  };
  return {
    nodes: async () => {
      const joined = current();
      if (!joined) return [];
      return (await joined.nodes()).map(({ name, online, agents, seenAt }) => ({
        name,
        online,
        agents,
        lastSeen: seenAt,
      }));
    },
    launch: async (node, request, who) => hub().launch(node, request, who),
    stop: (node, sessionId, who) => hub().stopSession(node, sessionId, who),
    away: (node) => current()?.away(node) ?? null,
  };
}
