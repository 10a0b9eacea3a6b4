import type * as NodePty from 'node-pty';
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, rmSync, statfsSync, statSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import path from 'node:path';
import { HOOK_CLIENT_COMMAND } from '../../drivers/hooks/claude-settings.js';
import { hostPaths, hostsDir, prepareHostsDir, type HostPaths } from '../../sessions/host/host-files.js';
import { openStore } from '../../store/store.js';
import { schemaVersion } from '../../store/database.js';
import { within, type CheckResult } from './check.js';

const MB = 1024 * 1024;

/** The running Node against the range package.json's `engines` allows. */
export function nodeCheck(
  wanted: string,
  satisfies: (version: string, range: string) => boolean,
): CheckResult {
  const version = process.versions.node;
  return satisfies(version, wanted)
    ? { id: 'node', status: 'ok', detail: `Node.js ${version} (agent-bridge needs ${wanted})` }
    : {
        id: 'node',
        status: 'fail',
        detail: `Node.js ${version}, but agent-bridge needs ${wanted}`,
        fix: 'install Node.js 20 or 22 (e.g. with nvm: nvm install 22)',
      };
}

/** node-pty loads (its native part is built for this Node) and runs a program in a pseudo-terminal. */
export async function ptyCheck(): Promise<CheckResult> {
  const fix = 'rebuild it for this Node: npm rebuild node-pty (needs python3, make and a C++ compiler)';
  let pty: typeof NodePty;
  try {
    pty = await import('node-pty');
  } catch (error) {
    return { id: 'pty', status: 'fail', detail: `node-pty does not load: ${firstLine(error)}`, fix };
  }
  const started = Date.now();
  const seen = await within(
    new Promise<string>((resolve) => {
      const child = pty.spawn('/bin/sh', ['-c', 'echo pty-ok'], { cols: 40, rows: 5 });
      let output = '';
      child.onData((data) => (output += data));
      child.onExit(() => resolve(output));
    }),
    5_000,
    () => '',
  );
  return seen.includes('pty-ok')
    ? { id: 'pty', status: 'ok', detail: `node-pty runs programs in a terminal (${Date.now() - started} ms)` }
    : { id: 'pty', status: 'fail', detail: 'node-pty started /bin/sh but saw no output within 5 s', fix };
}

/** The store opens, in WAL mode, at the newest schema. */
export function storeCheck(dir: string): CheckResult {
  const store = openStore({ dir });
  try {
    const mode = String(store.db.pragma('journal_mode', { simple: true }));
    const version = schemaVersion(store.db);
    const file = path.join(dir, 'agent-bridge.db');
    return mode === 'wal'
      ? { id: 'store', status: 'ok', detail: `SQLite opens ${file} in WAL mode (schema ${version})` }
      : {
          id: 'store',
          status: 'fail',
          detail: `SQLite opened ${file} in ${mode} mode, not WAL`,
          fix: 'the file system may not support WAL (a network drive?): set AGENT_BRIDGE_HOME to a local folder',
        };
  } finally {
    store.close();
  }
}

/** The data folder and what is in it are readable by this user only: they hold tokens and transcripts. */
export function privacyCheck(dir: string): CheckResult {
  const open = [dir, ...readdirSync(dir).map((name) => path.join(dir, name))].filter(
    (file) => (statSync(file).mode & 0o077) !== 0,
  );
  if (open.length === 0)
    return { id: 'data-folder', status: 'ok', detail: `${dir} and its files are private to you` };
  const shown = open.slice(0, 3).map((file) => `${file} (${(statSync(file).mode & 0o777).toString(8)})`);
  return {
    id: 'data-folder',
    status: 'fail',
    detail: `readable by others: ${shown.join(', ')}${open.length > 3 ? ` and ${open.length - 3} more` : ''}`,
    fix: `chmod -R go-rwx ${dir}`,
  };
}

/** Free space where the store, the audit log and recordings are written. */
export function diskCheck(dir: string): CheckResult {
  const { bavail, bsize } = statfsSync(dir);
  const free = bavail * bsize;
  const said = free >= 1024 * MB ? `${(free / 1024 / MB).toFixed(1)} GB` : `${Math.floor(free / MB)} MB`;
  if (free >= 1024 * MB) return { id: 'disk', status: 'ok', detail: `${said} free in ${dir}` };
  return {
    id: 'disk',
    status: free >= 100 * MB ? 'warn' : 'fail',
    detail: `only ${said} free in ${dir}: recordings and the audit log need room`,
    fix: 'free some space, or delete old recordings in ' + path.join(dir, 'recordings'),
  };
}

/** The web UI's port is free on its address (another program there would stop `serve` from starting). */
export function portCheck(host: string, port: number): Promise<CheckResult> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      resolve({
        id: 'web-port',
        status: 'warn',
        detail: `${host}:${port} is ${error.code === 'EADDRINUSE' ? 'in use' : `not usable (${error.code})`}`,
        fix: `if it is not a running agent-bridge serve, choose another: agent-bridge serve --port <n>`,
      }),
    );
    server.listen(port, host, () =>
      server.close(() =>
        resolve({ id: 'web-port', status: 'ok', detail: `${host}:${port} is free for the web UI` }),
      ),
    );
  });
}

/**
 * Claude Code's hooks reach a session's host as they do in a session: the hook client (run by this Node, as
 * Claude runs it) posts an event with the session's token to a unix socket in the data folder's `terminals/`.
 */
export async function hookCheck(dir: string): Promise<CheckResult> {
  const fix = 'run agent-bridge run claude --no-hooks (prompts from the screen only) and report this';
  const failed = (detail: string, what = fix): CheckResult => ({
    id: 'hooks',
    status: 'fail',
    detail,
    fix: what,
  });
  try {
    prepareHostsDir(dir);
  } catch (error) {
    return failed(firstLine(error), `remove ${hostsDir(dir)} and run again`);
  }
  let paths: HostPaths;
  try {
    paths = hostPaths(dir, randomUUID());
  } catch (error) {
    return failed(firstLine(error), 'use a shorter AGENT_BRIDGE_HOME');
  }
  const token = randomBytes(32).toString('hex');
  let reported = false;
  const server = createHttpServer((request, response) => {
    reported ||= request.url === '/hooks/Notification' && request.headers.authorization === `Bearer ${token}`;
    response.writeHead(reported ? 200 : 401).end('{}');
  });
  try {
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(paths.socket, resolve));
    const env = { AGENT_BRIDGE_HOOK_SOCKET: paths.socket, AGENT_BRIDGE_HOOK_TOKEN: token };
    const [node, client] = HOOK_CLIENT_COMMAND;
    const { status } = await runHookClient(node!, [client!, 'Notification'], env);
    return reported && status === 0
      ? { id: 'hooks', status: 'ok', detail: "Claude Code's hooks reach a session's host on its socket" }
      : failed(`the hook client's post did not arrive (exit ${status})`);
  } catch (error) {
    return failed(`a session's socket: ${firstLine(error)}`);
  } finally {
    server.close();
    rmSync(paths.socket, { force: true });
  }
}

/** The hook client with a Notification on its stdin, as Claude runs it; its exit status. */
function runHookClient(
  node: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ status: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, args, {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('error', reject);
    child.once('exit', (status) => {
      clearTimeout(timer);
      resolve({ status });
    });
    child.stdin.end(JSON.stringify({ hook_event_name: 'Notification', message: 'agent-bridge doctor' }));
  });
}

const firstLine = (error: unknown) => (error as Error).message.split('\n')[0] ?? '';
