import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { redactSecrets } from '../core/redact.js';

/** Where `serve` keeps its log, for `debug bundle` and for reading after the fact. */
export function daemonLogFile(dataDir: string): string {
  return path.join(dataDir, 'logs', 'serve.log');
}

/** A log past this size starts afresh at the next start; the previous one is kept as `serve.log.1`. */
const ROTATE_BYTES = 5 * 1024 * 1024;

export interface DaemonLog {
  /** One line for the person (stderr, `agent-bridge: …`) and the log file (JSON Lines, with the time). */
  log(line: string): void;
  close(): void;
}

/**
 * `serve`'s log: each line on stderr as today, and in `logs/serve.log` (pino JSON Lines, 0600). Lines are
 * redacted first: error messages of chat libraries can carry a token in a URL.
 */
export function openDaemonLog(dataDir: string, stderr: NodeJS.WritableStream = process.stderr): DaemonLog {
  const file = daemonLogFile(dataDir);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  if (existsSync(file) && statSync(file).size > ROTATE_BYTES) renameSync(file, `${file}.1`);
  // Synchronous: serve logs a few lines a minute, and none may be lost when it exits at once.
  const destination = pino.destination({ dest: file, mode: 0o600, sync: true });
  const logger = pino({ base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }, destination);
  return {
    log: (line) => {
      const safe = redactSecrets(line);
      stderr.write(`agent-bridge: ${safe}\n`);
      logger.info(safe);
    },
    close: () => destination.flushSync(),
  };
}
