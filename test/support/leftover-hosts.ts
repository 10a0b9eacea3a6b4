import { readdirSync, readlinkSync } from 'node:fs';
import { isCheckoutHost, readProcFile } from './host-processes.js';
import { endDetached } from './wait.js';

// vitest's global setup: a session host is detached (a session of its own), so one a test forgot outlives the
// run, its agent with it. At the end of the run, the hosts this run started and left are named (so the test
// that leaked one can be found) and ended. Only this checkout's hosts (host-main from its src/ or dist/),
// started after the run began (by their start time in /proc), are touched: never a user's own sessions.

let runStartedAt: number | null = null;

export function setup(): void {
  runStartedAt = startTime(process.pid);
}

export async function teardown(): Promise<void> {
  if (runStartedAt === null) return;
  const left = leftoverHosts(runStartedAt);
  if (left.length === 0) return;
  for (const host of left)
    console.warn(`test run left session host ${host.pid} running (its data folder: ${host.cwd}); ending it`);
  await endDetached(left.map((host) => host.pid));
}

/** This checkout's session hosts started at or after `since` (clock ticks since boot); none off Linux. */
function leftoverHosts(since: number): Array<{ pid: number; cwd: string }> {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const pid = Number(name);
    if (!Number.isInteger(pid) || !isCheckoutHost(pid)) return [];
    const started = startTime(pid);
    if (started === null || started < since) return [];
    return [{ pid, cwd: link(`/proc/${pid}/cwd`) }];
  });
}

/** A process's start, in clock ticks since boot (field 22 of /proc/PID/stat, after the command's parenthesis). */
function startTime(pid: number): number | null {
  const stat = readProcFile(pid, 'stat');
  if (!stat) return null;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const value = Number(fields[19]);
  return Number.isFinite(value) ? value : null;
}

function link(file: string): string {
  try {
    return readlinkSync(file);
  } catch {
    return '?';
  }
}
