import { existsSync } from 'node:fs';
import path from 'node:path';
import { StoreRefused } from '../../src/store/database.js';
import { openStore } from '../../src/store/store.js';
import { endDetached } from './wait.js';

/** The session hosts a data folder's store names for its running sessions: pid and socket. */
export function sessionHosts(dataDir: string): Array<{ session: string; pid: number; socket: string }> {
  if (!existsSync(path.join(dataDir, 'agent-bridge.db'))) return [];
  const store = openStore({ dir: dataDir });
  try {
    return store.sessions
      .list()
      .flatMap((s) =>
        s.sessionHost
          ? [{ session: s.id, pid: s.sessionHost.process.pid, socket: s.sessionHost.socket }]
          : [],
      );
  } finally {
    store.close();
  }
}

/**
 * Ends the session hosts a test started (by the pids its store names, when those run this checkout's host),
 * and their agents with them: SIGTERM to each host (it stops its agent's process group), SIGKILL to the
 * host's own group if it lingers.
 */
export async function endSessionHosts(dataDir: string): Promise<void> {
  await endDetached(listedHosts(dataDir).map((host) => host.pid));
}

/** The hosts a store names; none when a test damaged the store on purpose (its sessions had ended before). */
function listedHosts(dataDir: string): ReturnType<typeof sessionHosts> {
  try {
    return sessionHosts(dataDir);
  } catch (error) {
    if (error instanceof StoreRefused) return [];
    throw error;
  }
}
