import { readlink } from 'node:fs/promises';

/**
 * The path of the file an open descriptor is (Linux); null where the system does not say. A file opened by a
 * checked path is checked again by what was opened: a folder swapped for a link meanwhile shows here.
 */
export async function openedPath(fd: number): Promise<string | null> {
  if (process.platform !== 'linux') return null;
  return readlink(`/proc/self/fd/${fd}`).catch(() => null);
}
