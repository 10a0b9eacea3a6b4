import { homedir } from 'node:os';
import { expandDir } from '../config/repos.js';
import type { Daemon } from '../sessions/daemon/daemon.js';
import type { LiveSessions } from '../sessions/live-sessions.js';
import { sendTextToSession } from '../sessions/typed-text.js';
import type { SessionsWebBackend } from '../sessions/web-backend.js';
import type { Store } from '../store/store.js';
import type { NodeActions } from './node-commands.js';

/**
 * What a node does for its hubs, with the pieces `serve` already has: the daemon's repositories (text goes
 * through the repository's session, which knows its own echo), the sessions running in this process, and a
 * session starter like the web UI's (its sessions' messages are kept for the hubs).
 */
export function nodeActions(parts: {
  daemon: Daemon;
  live: LiveSessions;
  starter: Pick<SessionsWebBackend, 'start' | 'stop'>;
  store: Store;
}): NodeActions {
  const { daemon, live, starter, store } = parts;
  return {
    async send(sessionId, text, sentBy) {
      const repo = daemon.repoSessionOf(sessionId);
      if (repo) return repo.send(text, sentBy);
      const outcome = sendTextToSession(store, sessionId, text, sentBy);
      live.get(sessionId)?.poke();
      return outcome;
    },
    startRepo: (name) => daemon.startRepo(name),
    async launch(request, by) {
      // A folder of this machine, as its owner writes it: ~ is this machine's home, relative is from there.
      const session = await starter.start({ ...request, cwd: expandDir(request.cwd, homedir()) }, by);
      return {
        text: `${session.agent} started in ${session.cwd} (session ${session.id.slice(0, 8)})`,
        sessionId: session.id,
      };
    },
    async stop(sessionId, by) {
      const repo = daemon.repoSessionOf(sessionId);
      if (repo) {
        await repo.stop(`stopped by ${by}`);
        return true;
      }
      return starter.stop(sessionId);
    },
    cancel(sessionId) {
      const repo = daemon.repoSessionOf(sessionId);
      if (repo) return repo.cancel();
      const session = live.get(sessionId);
      session?.driver.interrupt();
      return Boolean(session);
    },
    answered: (sessionId) => live.get(sessionId)?.poke(),
  };
}
