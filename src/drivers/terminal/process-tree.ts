import { readdirSync, readFileSync, statSync } from 'node:fs';
import type { ProcessRef } from '../../core/process-ref.js';

export type { ProcessRef } from '../../core/process-ref.js';

/** One line of /proc/<pid>/stat, the fields we need. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  /** Controlling terminal's foreground process group (tpgid). */
  tpgid: number;
  state: string;
  command: string;
  /** Start time in clock ticks since boot: tells a reused pid from the process we saw before. */
  startTime: number;
}

/** Parses /proc/<pid>/stat; the command may contain spaces and parentheses, so split after the last ')'. */
export function parseProcStat(stat: string): ProcessInfo | null {
  const open = stat.indexOf('(');
  const close = stat.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const fields = stat.slice(close + 2).split(' ');
  const num = (i: number) => Number(fields[i]);
  return {
    pid: Number(stat.slice(0, open).trim()),
    command: stat.slice(open + 1, close),
    state: fields[0] ?? '?',
    ppid: num(1),
    pgid: num(2),
    sid: num(3),
    tpgid: num(5),
    startTime: num(19),
  };
}

export function readProcess(pid: number): ProcessInfo | null {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/** Every process on the machine (Linux); empty where /proc is missing. */
export function listProcesses(): ProcessInfo[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const result: ProcessInfo[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const info = readProcess(Number(entry));
    if (info && info.state !== 'Z') result.push(info);
  }
  return result;
}

/**
 * The processes that belong to a PTY session started with leader `rootPid`: its terminal session (sid), its
 * process group, and every descendant (which may have made its own group or session). Zombies excluded.
 * `known` (pid -> start time) keeps descendants seen earlier, whose parent may have exited since.
 */
export function sessionMembers(
  rootPid: number,
  known: ReadonlyMap<number, number> = new Map(),
): ProcessInfo[] {
  const all = listProcesses();
  const members = new Map<number, ProcessInfo>();
  for (const proc of all) {
    if (
      proc.sid === rootPid ||
      proc.pgid === rootPid ||
      proc.pid === rootPid ||
      known.get(proc.pid) === proc.startTime
    ) {
      members.set(proc.pid, proc);
    }
  }
  // Descendants by parent links, to a fixed point.
  let grew = true;
  while (grew) {
    grew = false;
    for (const proc of all) {
      if (!members.has(proc.pid) && members.has(proc.ppid)) {
        members.set(proc.pid, proc);
        grew = true;
      }
    }
  }
  return [...members.values()];
}

/** Sends `signal` to each pid, ignoring processes that are already gone. Never signals our own process. */
export function signalAll(pids: Iterable<number>, signal: NodeJS.Signals): void {
  for (const pid of pids) {
    if (pid === process.pid || pid <= 1) continue;
    try {
      process.kill(pid, signal);
    } catch {
      // already exited
    }
  }
}

export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  if (pgid <= 1 || pgid === process.pid) return;
  try {
    process.kill(-pgid, signal);
  } catch {
    // group already empty
  }
}

/**
 * The processes of one agent: its session and process group and every descendant, remembered as they are
 * seen, so the ones it leaves behind (Gemini's shell tools) are found even after their parent exited.
 */
export class ProcessFamily {
  private readonly known = new Map<number, number>();

  constructor(private readonly rootPid: number) {}

  /** Sends `signal` to the group and to every member, ours never. */
  signal(signal: NodeJS.Signals): void {
    const members = this.snapshot();
    signalGroup(this.rootPid, signal);
    signalAll(
      members.map((m) => m.pid),
      signal,
    );
  }

  /** SIGKILL to whatever of the family is left but the leader. */
  killLeftovers(): void {
    const left = this.snapshot().filter((m) => m.pid !== this.rootPid);
    if (left.length > 0)
      signalAll(
        left.map((m) => m.pid),
        'SIGKILL',
      );
  }

  private snapshot(): ProcessInfo[] {
    const members = sessionMembers(this.rootPid, this.known);
    for (const member of members) this.known.set(member.pid, member.startTime);
    return members;
  }
}

/** `dir` exists and is a folder (an agent's working directory is checked before anything starts). */
export function isFolder(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

let ownRef: ProcessRef | null = null;

/** This process, as others will check it. */
export function ownProcessRef(): ProcessRef {
  ownRef ??= { pid: process.pid, startTime: readProcess(process.pid)?.startTime ?? null };
  return ownRef;
}

/**
 * Is that very process still running? On Linux: /proc says it exists, is not a zombie, and started when the
 * reference says. Elsewhere the pid alone is asked (EPERM: it exists but belongs to someone else).
 */
export function isProcessAlive(ref: ProcessRef | number): boolean {
  const { pid, startTime } = typeof ref === 'number' ? { pid: ref, startTime: null } : ref;
  if (!Number.isInteger(pid) || pid <= 0) return false;
  const info = readProcess(pid);
  if (info)
    return info.state !== 'Z' && info.state !== 'X' && (startTime === null || info.startTime === startTime);
  if (procAvailable()) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

let hasProc: boolean | null = null;

function procAvailable(): boolean {
  hasProc ??= readProcess(process.pid) !== null;
  return hasProc;
}
