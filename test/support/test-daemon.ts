import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { currentDiscoveryEnv } from '../../src/agents/discovery.js';
import { getAgent, resolveLaunch } from '../../src/agents/registry.js';
import type { RepoConfig } from '../../src/config/schema.js';
import { systemClock } from '../../src/core/clock.js';
import {
  Daemon,
  type DaemonChannel,
  type DaemonOptions,
  type DaemonRepo,
} from '../../src/sessions/daemon/daemon.js';
import type { Store } from '../../src/store/store.js';
import { SessionHostWatch } from '../../src/sessions/host/host-watch.js';
import { LiveSessions } from '../../src/sessions/live-sessions.js';
import { processExists } from './wait.js';

const AGENT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fakes/agent/chatty-agent.sh');

/** A repository run by the scripted chatty agent (`<name> got: <line>`, `PWD` says its folder). */
export function chattyRepo(
  name: string,
  dir: string,
  chats: Record<string, string[]>,
  options: { config?: Partial<RepoConfig>; startup?: boolean } = {},
): DaemonRepo {
  return {
    name,
    dir,
    agent: getAgent('custom'),
    args: ['bash', AGENT, name],
    channels: Object.keys(chats),
    chats,
    baseDir: dir,
    ...(options.startup ? { startup: true } : {}),
    config: { name, dir, ...options.config },
  };
}

/** A started daemon over `store` with real agents found the usual way (no rate limits, no resume unless
 * `extra.settings` says otherwise), and the channels it hosts. */
export async function startTestDaemon(
  store: Store,
  repos: DaemonRepo[],
  channels: DaemonChannel[],
  extra: Partial<DaemonOptions> = {},
): Promise<{ daemon: Daemon; hosted: string[] }> {
  // As serve does: sessions still running in session hosts are taken back before anything starts.
  let daemon: Daemon | null = null;
  const watch = new SessionHostWatch({
    store,
    clock: systemClock,
    live: extra.live ?? new LiveSessions(),
    claim: (session, record) => daemon?.claim(session, record) ?? false,
    log: () => undefined,
    promptTtlMs: () => daemon?.promptTtlMs ?? {},
  });
  daemon = new Daemon({
    store,
    clock: systemClock,
    settings: { repos, idleTimeoutMs: 600_000, outputThreshold: 1500, resume: false, rateLimits: null },
    channels,
    resolve: async (spec, launch) => {
      const resolved = await resolveLaunch(spec, launch, currentDiscoveryEnv());
      return { command: resolved.command, args: resolved.args, found: resolved.discovered.found };
    },
    isAlive: (owner) => processExists(owner.pid),
    log: () => undefined,
    takeOver: () => watch.start(),
    ...extra,
  });
  const started = daemon;
  const stop = started.stop.bind(started);
  started.stop = async () => {
    await watch.stop();
    await stop();
  };
  return { daemon: started, hosted: await started.start() };
}
