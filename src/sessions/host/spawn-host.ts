import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SpawnError } from '../../drivers/terminal/pty-process.js';
import type { HostReady, HostStart } from './host-main.js';

/** A host that has not said it is ready by then is not coming (a loaded machine starts Node in ~1 s). */
const READY_TIMEOUT_MS = 30_000;

export interface SpawnedHost {
  hostPid: number;
  agentPid: number;
  socket: string;
}

/**
 * Starts a session host for `start`, detached (a session and process group of its own, no terminal), and
 * resolves once it runs the agent and listens on its socket. An agent that cannot start is a SpawnError, as
 * for a PTY of this process.
 */
export function spawnHost(start: HostStart): Promise<SpawnedHost> {
  const child = spawn(process.execPath, hostCommand(), {
    detached: true,
    cwd: start.dataDir,
    stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  const channel = child.stdio[3] as Socket;
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
      resolve({ hostPid: ready.hostPid, agentPid: ready.agentPid, socket: ready.socket });
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
  const built = fileURLToPath(new URL('./host-main.js', import.meta.url));
  if (existsSync(built)) return [built];
  // Resolved here: the host runs in the data folder, where `tsx` is not to be found.
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return ['--import', tsx, fileURLToPath(new URL('./host-main.ts', import.meta.url))];
}
