import type { ChildProcess } from 'node:child_process';
import { isCheckoutHost } from './host-processes.js';

/** Polls `check` until it returns a truthy value or the deadline passes; the error names what was awaited. */
export async function waitFor<T>(
  what: string,
  check: () => T | Promise<T>,
  { timeoutMs = 10_000, intervalMs = 25 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await check();
    if (last) return last as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Ends detached session hosts this test run started, by pid: SIGTERM to each (a host stops its agent's process
 * group), then SIGKILL to the host's own group if it lingers past `timeoutMs`. A pid that does not run this
 * checkout's host is left alone, whatever named it (a store's record may hold the worker's own pid, or 1).
 */
export async function endDetached(pids: number[], timeoutMs = 10_000): Promise<void> {
  const running = pids.filter((pid) => isCheckoutHost(pid));
  for (const pid of running) signal(pid, 'SIGTERM');
  await waitFor('the processes to end', () => running.every((pid) => !processExists(pid)), {
    timeoutMs,
  }).catch(() => {
    for (const pid of running) if (processExists(pid)) signal(-pid, 'SIGKILL');
  });
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone meanwhile
  }
}

/**
 * Signals a child this test started and waits for its exit (a child still writing into a folder the test
 * then removes fails the removal with ENOTEMPTY). A child that has already exited is left as it is.
 */
export async function endChild(
  child: ChildProcess | null | undefined,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  await exited;
}
