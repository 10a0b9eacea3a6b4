/**
 * CPU time of processes from /proc (Linux): what a bench cannot ask process.cpuUsage() for, because the work
 * happens in another process (a session host, a peer's server, the program in a PTY).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times (sysconf(_SC_CLK_TCK); 100 nearly everywhere). */
const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/**
 * A process's user + system CPU, ms: `own`, and `children`, that of the children it waited for (with theirs:
 * times(2)); null once it is gone.
 */
export function processCpuMs(pid: number | 'self'): { own: number; children: number } | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // After the command's closing parenthesis: state is field 3, utime 14, stime 15, cutime 16, cstime 17.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ms = (field: number) => (Number(fields[field - 3]) * 1000) / TICKS_PER_SECOND;
  return { own: ms(14) + ms(15), children: ms(16) + ms(17) };
}

/** This process, its children that ended since, and what each of `alive` used (with its ended children). */
export function cpuSnapshot(alive: number[] = []): number {
  const self = processCpuMs('self');
  let total = (self?.own ?? 0) + (self?.children ?? 0);
  for (const pid of alive) {
    const cpu = processCpuMs(pid);
    total += (cpu?.own ?? 0) + (cpu?.children ?? 0);
  }
  return total;
}
