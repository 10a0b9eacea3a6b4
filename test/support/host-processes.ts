import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// What tests may end as a session host: only a process running this checkout's host-main (from its src/ or
// dist/), never the pid a store merely names. Tests put the worker's own pid, or 1, in a store's host record on
// purpose; signalling those would end the test run itself (or init).

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HOST_ENTRIES = [
  'src/sessions/host/host-main.ts',
  'dist/sessions/host/host-main.js',
  'dist/bundle/host-main.js',
].map((entry) => path.join(ROOT, entry));

/** Whether `pid` is a session host from this checkout (false off Linux, where /proc cannot tell). */
export function isCheckoutHost(pid: number): boolean {
  if (pid === process.pid) return false;
  const args = readProcFile(pid, 'cmdline')?.split('\0') ?? [];
  return args.some((arg) => HOST_ENTRIES.includes(arg));
}

/** A file of /proc/PID, or null when the process (or /proc) is not there. */
export function readProcFile(pid: number, name: string): string | null {
  try {
    return readFileSync(`/proc/${pid}/${name}`, 'utf8');
  } catch {
    return null;
  }
}
