/**
 * A session host's process (see session-host.ts), started by spawn-host.ts detached in a session of its own:
 * it reads what to run as one JSON line on fd 3, starts the agent, listens on its socket, answers `ready` (or
 * why it could not start) on fd 3, and lives until the agent ends. Kept to what the host needs: this is the
 * process an idle session costs.
 */
import { appendFileSync, closeSync, existsSync, mkdirSync, rmSync, watch } from 'node:fs';
import { Socket } from 'node:net';
import path from 'node:path';
import { systemClock } from '../../core/clock.js';
import { SpawnError } from '../../drivers/terminal/pty-process.js';
import {
  hostPaths,
  prepareHostsDir,
  removeHostFiles,
  writeExitReport,
  writeSecret,
  type HostPaths,
} from './host-files.js';
import type { BrowserViewers } from './browser-viewers.js';
import { serveHost } from './host-server.js';
import type { HostLaunch } from './host-wire.js';
import { SessionHost } from './session-host.js';
import { openTerminalSink, TERMINAL_FD } from './terminal-sink.js';

/** What the spawner sends: the launch, and the data folder the host's files go in. */
export interface HostStart extends HostLaunch {
  dataDir: string;
}

/** What the host answers on fd 3. */
export type HostReady =
  | { ready: true; hostPid: number; agentPid: number; socket: string }
  | { ready: false; error: string; spawnError: boolean };

const channel = new Socket({ fd: 3, readable: true, writable: true });
/** Where a fatal error is written: the data folder's logs, once known. */
let logsDir: string | null = null;

async function main(): Promise<void> {
  process.umask(0o077);
  const start = JSON.parse(await firstLine(channel)) as HostStart;
  process.chdir(start.dataDir);
  logsDir = path.join(start.dataDir, 'logs');
  const paths = hostPaths(start.dataDir, start.session.id);
  prepareHostsDir(start.dataDir);
  let host: SessionHost;
  try {
    host = await SessionHost.start(start, systemClock, spawnersTerminal(start));
  } catch (error) {
    tell({ ready: false, error: (error as Error).message, spawnError: error instanceof SpawnError });
    process.exit(1);
  }
  rmSync(paths.socket, { force: true });
  const secret = writeSecret(paths.secret);
  const server = await serveHost(host, {
    socket: paths.socket,
    secret,
    hookToken: start.hookToken,
    clock: systemClock,
  });
  const viewers = viewersFromSpawner(host);
  host.onEnd({
    // Nobody can read it where the socket is gone (the data folder was removed): nothing is written there.
    told: (report) => existsSync(paths.socket) && writeExitReport(paths.exit, { ...report, at: Date.now() }),
    finished: (_report, recorded) => {
      if (recorded || !host.claimed) rmSync(paths.exit, { force: true });
      removeHostFiles(paths);
      // The browsers read to the end (the exit last) before the process goes.
      const browsers = viewers?.close(1000, 'the session ended') ?? Promise.resolve();
      void Promise.allSettled([browsers, server.close()]).finally(() => process.exit(0));
    },
  });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const)
    process.on(signal, () => host.stop(`${signal} sent to its session host`, signal));
  stopWhenUnreachable(host, paths);
  tell({ ready: true, hostPid: process.pid, agentPid: host.pty.pid, socket: paths.socket });
}

/**
 * The spawner's terminal, when it gave it (`--terminal`: its stdout is our fd 4) and the launch wants the
 * output written there; given and not wanted, it is closed at once: the host never holds a terminal it does
 * not write to.
 */
function spawnersTerminal(start: HostStart) {
  if (!process.argv.includes('--terminal')) return null;
  if (start.terminal) return openTerminalSink(TERMINAL_FD);
  closeSync(TERMINAL_FD);
  return null;
}

/**
 * Started by serve with an IPC channel: the browsers of its web UI are handed over it (browser-viewers.ts),
 * and go when serve does (they come back through the next serve, which relays them).
 */
function viewersFromSpawner(
  host: SessionHost,
): { close(code: number, reason: string): Promise<void> } | null {
  if (!process.send) return null;
  // Loaded with the first browser: a host nobody watches from the web never loads the page's protocol.
  let viewers: Promise<BrowserViewers> | null = null;
  const loaded = () =>
    (viewers ??= import('./browser-viewers.js').then(({ BrowserViewers }) => new BrowserViewers(host)));
  process.on('message', (message, handle) => void loaded().then((v) => v.take(message, handle)));
  const close = (code: number, reason: string) =>
    viewers ? viewers.then((v) => v.close(code, reason)) : Promise.resolve();
  process.on('disconnect', () => void close(1001, 'agent-bridge serve stopped'));
  return { close };
}

/**
 * A host whose socket was removed (its data folder deleted) can never be reached again: rather than run on,
 * unseen and unstoppable, it ends its agent. The kernel says when the folder changes: nothing is polled.
 */
function stopWhenUnreachable(host: SessionHost, paths: HostPaths): void {
  const name = path.basename(paths.socket);
  const check = () => {
    if (!existsSync(paths.socket)) host.stop('its socket was removed', 'SIGHUP');
  };
  try {
    const watcher = watch(paths.dir, { persistent: false }, (_event, file) => {
      if (!file || String(file) === name) check();
    });
    watcher.on('error', check);
  } catch {
    // Without notifications the host simply runs until its agent ends.
  }
}

function tell(message: HostReady): void {
  channel.end(JSON.stringify(message) + '\n');
}

function firstLine(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end >= 0) resolve(text.slice(0, end));
    });
    socket.once('error', reject);
    socket.once('end', () => reject(new Error('the launch never came')));
  });
}

/** A host that breaks ends its agent rather than leave it unreachable, and says why in the data folder's logs. */
function fatal(error: unknown): void {
  try {
    if (!logsDir) throw error;
    mkdirSync(logsDir, { recursive: true, mode: 0o700 });
    const line = `${new Date().toISOString()} session host ${process.pid}: ${(error as Error)?.stack ?? String(error)}\n`;
    appendFileSync(path.join(logsDir, 'session-hosts.log'), line, { mode: 0o600 });
  } catch {
    // nowhere to say it
  }
  process.exit(1);
}

process.on('uncaughtException', fatal);
process.on('unhandledRejection', fatal);
void main().catch(fatal);
