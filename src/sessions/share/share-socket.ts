import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import path from 'node:path';

/**
 * Where a session run in a terminal (`agent-bridge run`) shares its screen: a unix socket per session in the
 * data folder's `terminals/`, a folder only this user may enter (0700), the socket itself 0600. Both ends
 * check the folder: it must be a real folder (not a link), this user's, closed to others.
 */

/** Linux and macOS refuse longer unix socket paths (sun_path). */
const MAX_SOCKET_PATH = 103;
const SOCKET_NAME = /^[0-9a-f-]{36}\.sock$/;

export function sharesDir(dataDir: string): string {
  return path.join(dataDir, 'terminals');
}

/** The socket a session shares on, or an error saying why it cannot. */
export function shareSocketPath(dataDir: string, sessionId: string): string {
  const file = path.join(sharesDir(dataDir), `${sessionId}.sock`);
  if (!SOCKET_NAME.test(path.basename(file))) throw new Error(`not a session id: ${sessionId}`);
  if (Buffer.byteLength(file) > MAX_SOCKET_PATH)
    throw new Error(`the data folder's path is too long for a unix socket (${file})`);
  return file;
}

/** Creates the folder (0700), or checks the one there: a real folder of this user's that no one else may enter. */
export function prepareSharesDir(dataDir: string): string {
  const dir = sharesDir(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const problem = dirProblem(dir);
  if (problem === 'open') chmodSync(dir, 0o700);
  else if (problem) throw new Error(`${dir} ${problem}: remove it and run again`);
  return dir;
}

/** A socket serve may connect to: in the shares folder (checked), named for a session, a socket of this user. */
export function isTrustedSocket(dataDir: string, file: string): boolean {
  const dir = sharesDir(dataDir);
  if (path.dirname(file) !== dir || !SOCKET_NAME.test(path.basename(file))) return false;
  if (dirProblem(dir) !== null) return false;
  try {
    const stat = lstatSync(file);
    return stat.isSocket() && ownedByMe(stat.uid);
  } catch {
    return false;
  }
}

function dirProblem(dir: string): 'is not a folder' | 'belongs to another user' | 'open' | null {
  const stat = lstatSync(dir);
  if (!stat.isDirectory()) return 'is not a folder';
  if (!ownedByMe(stat.uid)) return 'belongs to another user';
  return (stat.mode & 0o077) !== 0 ? 'open' : null;
}

function ownedByMe(uid: number): boolean {
  return typeof process.getuid !== 'function' || uid === process.getuid();
}
