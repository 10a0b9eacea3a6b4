import { readFileSync, readlinkSync } from 'node:fs';
import { listProcesses, readProcess } from '../process-tree.js';

/**
 * What the terminal's foreground processes are doing (Linux, /proc): `reading` the terminal (they wait for a
 * person: seed 004 §5.2), `not-reading` (sleeping, waiting for a child, running: silence means work, not a
 * question), or `maybe` (polling several inputs, as event-loop TUIs do). `unknown` where /proc cannot tell.
 */
export type TtyWaitState = 'reading' | 'maybe' | 'not-reading' | 'unknown';

interface SyscallTable {
  reads: number[];
  /** Sleeping, or waiting for a child: not waiting for input. */
  busy: number[];
}

const SYSCALLS: Partial<Record<NodeJS.Architecture, SyscallTable>> = {
  // read, readv, pread64 | nanosleep, clock_nanosleep, wait4, waitid, pause
  x64: { reads: [0, 19, 17], busy: [35, 230, 61, 247, 34] },
  arm64: { reads: [63, 65, 67], busy: [101, 115, 260, 95] },
};

export function ttyWaitState(leaderPid: number, ttyPath: string): TtyWaitState {
  const table = SYSCALLS[process.arch];
  if (process.platform !== 'linux' || !table || !ttyPath) return 'unknown';
  const leader = readProcess(leaderPid);
  if (!leader || leader.tpgid <= 0) return 'unknown';
  const foreground =
    leader.tpgid === leader.pid ? [leader] : listProcesses().filter((p) => p.pgid === leader.tpgid);
  if (foreground.length === 0) return 'unknown';
  const states = foreground.map((proc) => processState(proc.pid, table, ttyPath));
  if (states.includes('reading')) return 'reading';
  if (states.every((state) => state === 'not-reading')) return 'not-reading';
  return states.includes('maybe') ? 'maybe' : 'unknown';
}

/** Kept for callers that only ask the yes/no question. */
export function isBlockedOnTtyRead(leaderPid: number, ttyPath: string): boolean {
  return ttyWaitState(leaderPid, ttyPath) === 'reading';
}

function processState(pid: number, table: SyscallTable, ttyPath: string): TtyWaitState {
  let fields: string[];
  try {
    fields = readFileSync(`/proc/${pid}/syscall`, 'utf8').trim().split(' ');
  } catch {
    return 'unknown';
  }
  if (fields[0] === 'running') return 'not-reading';
  const call = Number(fields[0]);
  if (table.busy.includes(call)) return 'not-reading';
  if (!table.reads.includes(call)) return 'maybe';
  const fd = Number.parseInt(fields[1] ?? '', 16);
  try {
    return readlinkSync(`/proc/${pid}/fd/${fd}`) === ttyPath ? 'reading' : 'not-reading';
  } catch {
    return 'unknown';
  }
}
