import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ExitReport } from './host-wire.js';

/**
 * Where session hosts live: per session, in the data folder's `terminals/` (a folder only this user may enter,
 * 0700), a unix socket (0600), the secret a client must present on it (a file, 0600), and, once the agent
 * ended, how it ended (for whoever notices the host gone before it could tell anyone). Node cannot ask the
 * kernel who connected (no SO_PEERCRED), so the checks are these: the folder is a real folder of this user's
 * that no one else may enter, the socket and the secret are this user's and private, and a client must read
 * the secret to be let in. Both ends check.
 */

/** Linux and macOS refuse longer unix socket paths (sun_path). */
const MAX_SOCKET_PATH = 103;
const SESSION_ID = /^[0-9a-f-]{36}$/;

export interface HostPaths {
  dir: string;
  socket: string;
  secret: string;
  exit: string;
}

export function hostsDir(dataDir: string): string {
  return path.join(dataDir, 'terminals');
}

/** The files of a session's host, or an error saying why it cannot have them. */
export function hostPaths(dataDir: string, sessionId: string): HostPaths {
  if (!SESSION_ID.test(sessionId)) throw new Error(`not a session id: ${sessionId}`);
  const dir = hostsDir(dataDir);
  const socket = path.join(dir, `${sessionId}.sock`);
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH)
    throw new Error(`the data folder's path is too long for a unix socket (${socket})`);
  return {
    dir,
    socket,
    secret: path.join(dir, `${sessionId}.secret`),
    exit: path.join(dir, `${sessionId}.exit`),
  };
}

/** Creates the folder (0700), or checks the one there: a real folder of this user's that no one else may enter. */
export function prepareHostsDir(dataDir: string): string {
  const dir = hostsDir(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const problem = dirProblem(dir);
  if (problem === 'open') chmodSync(dir, 0o700);
  else if (problem) throw new Error(`${dir} ${problem}: remove it and run again`);
  return dir;
}

/** A new secret for a host, written where only this user can read it. */
export function writeSecret(file: string): string {
  const secret = randomBytes(32).toString('hex');
  writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' });
  return secret;
}

/**
 * The socket a client may connect to, and the secret it presents there: both in the hosts folder (checked),
 * named for the session, this user's, private. Null when anything is off (never followed: a link, a file
 * someone else made, an open folder).
 */
export function trustedHost(
  dataDir: string,
  socketPath: string,
): { socket: string; secret: string; sessionId: string } | null {
  const dir = hostsDir(dataDir);
  const name = path.basename(socketPath);
  const sessionId = name.endsWith('.sock') ? name.slice(0, -'.sock'.length) : '';
  if (path.dirname(socketPath) !== dir || !SESSION_ID.test(sessionId)) return null;
  try {
    if (dirProblem(dir) !== null) return null;
    const paths = hostPaths(dataDir, sessionId);
    const socket = lstatSync(paths.socket);
    const secretFile = lstatSync(paths.secret);
    if (!socket.isSocket() || !ownedByMe(socket.uid)) return null;
    if (!secretFile.isFile() || !ownedByMe(secretFile.uid) || (secretFile.mode & 0o077) !== 0) return null;
    const secret = readFileSync(paths.secret, 'utf8').trim();
    return secret ? { socket: paths.socket, secret, sessionId } : null;
  } catch {
    return null;
  }
}

/** Written by the host when its agent ended, before it tells anyone: read by whoever finds the host gone. */
export function writeExitReport(file: string, report: ExitReport & { at: number }): void {
  try {
    writeFileSync(file, JSON.stringify(report) + '\n', { mode: 0o600 });
  } catch {
    // A full disk: the session is then said to have crashed, which is the most that can be known.
  }
}

/** How a session whose host is gone ended, if its host could say; the report is taken (removed). */
export function takeExitReport(dataDir: string, sessionId: string): (ExitReport & { at: number }) | null {
  let file: string;
  try {
    file = hostPaths(dataDir, sessionId).exit;
    const stat = lstatSync(file);
    if (!stat.isFile() || !ownedByMe(stat.uid)) return null;
  } catch {
    return null;
  }
  try {
    const report = JSON.parse(readFileSync(file, 'utf8')) as ExitReport & { at: number };
    return typeof report === 'object' && report !== null && typeof report.at === 'number' ? report : null;
  } catch {
    return null;
  } finally {
    rmSync(file, { force: true });
  }
}

/** Removes what a host leaves behind (its socket and secret; the exit report is someone else's to take). */
export function removeHostFiles(paths: HostPaths): void {
  rmSync(paths.socket, { force: true });
  rmSync(paths.secret, { force: true });
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
