import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { PromptTtls } from '../config/prompt-ttls.js';
import { startWebServer } from '../channels/web/web-server.js';
import type { Clock } from '../core/clock.js';
import type { LiveSessions } from '../sessions/live-sessions.js';
import type { RemoteSessions } from '../sessions/remote-sessions.js';
import { SessionsWebBackend } from '../sessions/web-backend.js';
import type { Store } from '../store/store.js';
import { CliFailure, UsageError } from './errors.js';
import { packageFile } from '../package-files.js';

export interface WebOptions {
  host: string;
  port: number;
  tlsCert?: string;
  tlsKey?: string;
  /** Allow plain HTTP on an address other than loopback (not recommended). */
  insecure?: boolean;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);
const STATIC_DIR = packageFile('dist', 'web');

/** As long as the tokens made here (24 random bytes): the right token is never throttled, so it must not be guessable. */
const MIN_TOKEN_CHARS = 32;

/** The access token, made once and kept in the data folder (0600): the printed URL carries it. */
export function webToken(dataDir: string): string {
  const file = path.join(dataDir, 'web-token');
  if (existsSync(file)) {
    const token = readFileSync(file, 'utf8').trim();
    if (token.length < MIN_TOKEN_CHARS || /\s/.test(token)) {
      throw new CliFailure(
        `${file} holds a token that could be guessed (under ${MIN_TOKEN_CHARS} characters, or with spaces): delete the file and agent-bridge makes a new one`,
      );
    }
    return token;
  }
  const token = randomBytes(24).toString('base64url');
  writeFileSync(file, token + '\n', { mode: 0o600 });
  return token;
}

export async function startWeb(
  options: WebOptions,
  context: {
    store: Store;
    watchStore: Store;
    clock: Clock;
    live: LiveSessions;
    /** Sessions started from the page get Claude Code's hooks. */
    hooks?: boolean;
    version: string;
    log: (line: string) => void;
    /** A cluster hub: its nodes' sessions started and stopped from the page. */
    remote?: RemoteSessions;
    /** How long each kind of prompt waits in sessions started from the page. */
    promptTtlMs?: () => PromptTtls;
  },
): Promise<{ url: string; close(): Promise<void> }> {
  if (Boolean(options.tlsCert) !== Boolean(options.tlsKey))
    throw new UsageError('give both --tls-cert and --tls-key (a certificate and its private key, PEM)');
  const tls =
    options.tlsCert && options.tlsKey
      ? { cert: readPem('--tls-cert', options.tlsCert), key: readPem('--tls-key', options.tlsKey) }
      : undefined;
  if (!LOOPBACK.has(options.host)) {
    if (!tls && !options.insecure) {
      throw new UsageError(
        `--host ${options.host} would expose your agents to the network: give --tls-cert and --tls-key, or --insecure-bind to accept plain HTTP`,
      );
    }
    context.log(
      `warning: the web UI listens on ${options.host}, reachable from other machines; anyone with the token controls your agents`,
    );
  }
  const token = webToken(context.store.dir);
  const backend = new SessionsWebBackend({
    store: context.store,
    watchStore: context.watchStore,
    clock: context.clock,
    live: context.live,
    ...(context.hooks ? { hooks: true } : {}),
    version: context.version,
    cwd: process.cwd(),
    ...(context.remote ? { remote: context.remote } : {}),
    ...(context.promptTtlMs ? { promptTtlMs: context.promptTtlMs } : {}),
  });
  const server = await startWebServer({
    backend,
    token,
    host: options.host,
    port: options.port,
    clock: context.clock,
    staticDir: STATIC_DIR,
    ...(tls ? { tls } : {}),
    log: context.log,
  }).catch((error: NodeJS.ErrnoException) => {
    backend.close();
    if (error.code === 'EADDRINUSE') {
      throw new UsageError(
        `port ${options.port} on ${options.host} is in use (another agent-bridge serve?): choose one with --port, or --no-web`,
      );
    }
    throw error;
  });
  return {
    url: `${server.url}/?token=${token}`,
    close: async () => {
      backend.close();
      await server.close();
    },
  };
}

/** A PEM file named on the command line: its bytes, or a usage error that names the option and the file. */
function readPem(option: string, file: string): Buffer {
  let pem: Buffer;
  try {
    pem = readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'not readable by you' : code;
    throw new UsageError(`${option} ${file}: ${why}`);
  }
  if (!pem.includes('-----BEGIN '))
    throw new UsageError(`${option} ${file}: not a PEM file (-----BEGIN … -----)`);
  return pem;
}
