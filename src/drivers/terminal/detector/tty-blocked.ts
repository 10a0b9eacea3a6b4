import { readFileSync, readlinkSync } from 'node:fs';
import { listProcesses, readProcess } from '../process-tree.js';

/** read, readv and pread64 system call numbers by CPU architecture (Linux). */
const READ_SYSCALLS: Partial<Record<NodeJS.Architecture, number[]>> = {
  x64: [0, 19, 17],
  arm64: [63, 65, 67],
  ia32: [3, 145, 180],
  arm: [3, 145, 180],
};

/**
 * Signal 2 of seed 004 §5.2: is a process of the terminal's foreground group blocked reading this terminal?
 * Linux only: /proc/<pid>/stat gives the foreground group, /proc/<pid>/syscall the call it sleeps in and its
 * first argument (the file descriptor), /proc/<pid>/fd/<n> what that descriptor is.
 */
export function isBlockedOnTtyRead(leaderPid: number, ttyPath: string): boolean {
  const reads = READ_SYSCALLS[process.arch];
  if (process.platform !== 'linux' || !reads || !ttyPath) return false;
  const leader = readProcess(leaderPid);
  if (!leader || leader.tpgid <= 0) return false;
  const foreground =
    leader.tpgid === leader.pid ? [leader] : listProcesses().filter((p) => p.pgid === leader.tpgid);
  return foreground.some((proc) => readsFrom(proc.pid, reads, ttyPath));
}

function readsFrom(pid: number, reads: number[], ttyPath: string): boolean {
  try {
    const [call, fdHex] = readFileSync(`/proc/${pid}/syscall`, 'utf8').trim().split(' ');
    if (!reads.includes(Number(call))) return false;
    const fd = Number.parseInt(fdHex ?? '', 16);
    return Number.isInteger(fd) && readlinkSync(`/proc/${pid}/fd/${fd}`) === ttyPath;
  } catch {
    return false;
  }
}
