import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SpawnError } from '../../drivers/terminal/pty-process.js';
import { FROM_SOURCES } from '../../package-files.js';
import type { HostReady, HostStart } from './host-main.js';
import { viewerHandoff, type ViewerHandoff } from './viewer-handoff.js';

/** A host that has not said it is ready by then is not coming (a loaded machine starts Node in ~1 s). */
const READY_TIMEOUT_MS = 30_000;

export interface SpawnedHost {
  hostPid: number;
  agentPid: number;
  socket: string;
  /** Started with `viewers`: browsers' terminals are handed to it over this. */
  viewers: ViewerHandoff | null;
}

interface HostProcess {
  child: ChildProcess;
  channel: Socket;
  /** The file descriptor of this process it was given as its terminal (TERMINAL_FD there); null: none. */
  terminal: number | null;
  /** It has an IPC channel to this process, for browsers' sockets (browser-viewers.ts). */
  viewers: boolean;
}

/** This process's own output: where a host writes the agent's output for `run`. */
const STDOUT_FD = 1;

/** A host process started ahead of its launch, waiting for it (prewarmHost). */
let warm: HostProcess | null = null;

/**
 * Starts a session host's process now, before this process knows what it will run: Node and the host's
 * modules load (~140 ms of CPU) while this process loads its own, on another core, instead of after it. The
 * next spawnHost() takes it. Unused, it ends as soon as this process does (its launch pipe closes), or at
 * discardPrewarmedHost(); it never keeps this process alive. `terminal`: it gets this process's stdout, to
 * write the agent's output to (see HostLaunch.terminal).
 */
export function prewarmHost(terminal = false): void {
  if (warm) return;
  const started = startHostProcess(terminal ? STDOUT_FD : null, false);
  started.child.unref();
  started.channel.unref();
  started.child.once('exit', () => {
    if (warm === started) warm = null;
  });
  warm = started;
}

/** This process will start no session host after all (a structured session): the waiting one ends. */
export function discardPrewarmedHost(): void {
  warm?.channel.destroy();
  warm = null;
}

function takeWarm(terminal: number | null, viewers: boolean): HostProcess | null {
  const taken = warm;
  if (taken?.terminal !== terminal || taken.viewers !== viewers) return null;
  warm = null;
  if (!taken || taken.child.exitCode !== null || taken.child.signalCode !== null || taken.channel.destroyed)
    return null;
  taken.child.ref();
  taken.channel.ref();
  return taken;
}

/**
 * The host's process: detached (a session and process group of its own, no controlling terminal), reading
 * its launch; `terminal`: this process's file descriptor it gets as its TERMINAL_FD; `viewers`: an IPC channel
 * to this process (fd 5), which ends with it.
 */
function startHostProcess(terminal: number | null, viewers: boolean): HostProcess {
  const given = terminal !== null;
  const fourth = given ? [terminal] : viewers ? ['ignore' as const] : [];
  const child = spawn(process.execPath, [...hostCommand(), ...(given ? ['--terminal'] : [])], {
    detached: true,
    // The host moves to the data folder once its launch names it: it never holds the folder it was started in.
    cwd: '/',
    stdio: ['ignore', 'ignore', 'ignore', 'pipe', ...fourth, ...(viewers ? ['ipc' as const] : [])],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  return { child, channel: child.stdio[3] as Socket, terminal, viewers };
}

/**
 * Starts a session host for `start` (the prewarmed one, if any) and resolves once it runs the agent and
 * listens on its socket. An agent that cannot start is a SpawnError, as for a PTY of this process. With
 * `start.terminal` the host writes the output to `terminalFd` of this process (default its stdout).
 */
export function spawnHost(
  start: HostStart,
  options: { terminalFd?: number; viewers?: boolean } = {},
): Promise<SpawnedHost> {
  const terminal = start.terminal ? (options.terminalFd ?? STDOUT_FD) : null;
  const viewers = options.viewers ?? false;
  const { child, channel } = takeWarm(terminal, viewers) ?? startHostProcess(terminal, viewers);
  return new Promise<SpawnedHost>((resolve, reject) => {
    let text = '';
    const fail = (error: Error) => {
      clearTimeout(timer);
      channel.destroy();
      reject(error);
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error('the session host did not start within 30 s'));
    }, READY_TIMEOUT_MS);
    child.once('error', (error) => fail(new Error(`cannot start a session host: ${error.message}`)));
    child.once('exit', (code) =>
      fail(new Error(`the session host ended before it was ready (exit code ${code ?? '?'})`)),
    );
    channel.setEncoding('utf8');
    channel.on('data', (chunk: string) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end < 0) return;
      const ready = JSON.parse(text.slice(0, end)) as HostReady;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      channel.destroy();
      if (!ready.ready) {
        reject(ready.spawnError ? new SpawnError(ready.error) : new Error(ready.error));
        return;
      }
      child.unref();
      // The channel never keeps this process alive: the host lives on without it.
      child.channel?.unref();
      const handoff = viewers && child.connected ? viewerHandoff(child) : null;
      resolve({ hostPid: ready.hostPid, agentPid: ready.agentPid, socket: ready.socket, viewers: handoff });
    });
    channel.on('error', () => undefined);
    channel.write(JSON.stringify(start) + '\n');
  });
}

/**
 * How to run host-main: the built JavaScript next to this file, or its TypeScript source through tsx (the
 * tests run the sources).
 */
function hostCommand(): string[] {
  if (!FROM_SOURCES) return [fileURLToPath(new URL('./host-main.js', import.meta.url))];
  // Resolved here: the host runs in the data folder, where `tsx` is not to be found.
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return ['--import', tsx, fileURLToPath(new URL('./host-main.ts', import.meta.url))];
}
