import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DATABASE_FILE } from '../../src/store/store.js';

/**
 * Ends the session hosts a data folder's store knows as running, and waits until they are gone with their
 * agents. `serve` lets its hosted sessions go on when it stops (the next serve takes them over), so a test
 * that stopped serve still has agents running: they must end before the folders they write to are removed,
 * or an agent writing as it ends (Claude Code saves its transcript) creates them again, and lives on.
 */
export async function endSessionHosts(dataDir: string, timeoutMs = 10_000): Promise<void> {
  const file = path.join(dataDir, DATABASE_FILE);
  if (!existsSync(file)) return;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  let pids: number[];
  try {
    pids = (
      db
        .prepare("SELECT host_pid FROM sessions WHERE status = 'active' AND host_pid IS NOT NULL")
        .all() as Array<{
        host_pid: number;
      }>
    ).map((row) => row.host_pid);
  } finally {
    db.close();
  }
  const hosts = pids.filter(isSessionHost);
  for (const pid of hosts) signal(pid, 'SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (hosts.some(isSessionHost) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  for (const pid of hosts.filter(isSessionHost)) signal(pid, 'SIGKILL');
}

/** Still a session host (not a process that took its pid since). */
function isSessionHost(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('host-main');
  } catch {
    return false;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone already
  }
}
