import { InvalidArgumentError } from 'commander';
import { MAX_TIMER_SECONDS } from '../config/duration.js';
import { PROMPT_KINDS } from '../core/events.js';
import { MAX_TERMINAL_SIZE } from '../sessions/host/host-wire.js';

/** The "Examples:" block every command's --help ends with. */
export function examples(...lines: string[]): string {
  return '\nExamples:\n' + lines.map((line) => `  $ ${line}`).join('\n') + '\n';
}

export function positiveIntOrZero(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError('expected a whole number');
  return parsed;
}

/** `--cols`/`--rows`: a size the session host accepts (host-requests.ts holds its clients to the same bound). */
export function terminalSize(value: string): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed < 1 || parsed > MAX_TERMINAL_SIZE)
    throw new InvalidArgumentError(`expected a whole number from 1 to ${MAX_TERMINAL_SIZE}`);
  return parsed;
}

/** The longest prompt TTL, in whole seconds: what a timer can wait (Node's setTimeout). */
export const MAX_TTL_SECONDS = MAX_TIMER_SECONDS;

/** `--prompt-ttl kind=seconds`: milliseconds for that kind of prompt. */
export function promptTtl(value: string): Record<string, number> {
  const match = /^([a-z_]+)=(\d+)$/.exec(value);
  if (!match || !(PROMPT_KINDS as readonly string[]).includes(match[1]!)) {
    throw new InvalidArgumentError(`expected kind=seconds with kind one of ${PROMPT_KINDS.join(', ')}`);
  }
  const seconds = Number(match[2]);
  if (seconds === 0)
    throw new InvalidArgumentError('expected at least 1 second (0 would expire each prompt at once)');
  if (seconds > MAX_TTL_SECONDS)
    throw new InvalidArgumentError(`expected at most ${MAX_TTL_SECONDS} seconds (just under 25 days)`);
  return { [match[1]!]: seconds * 1000 };
}

/** A TCP port, or 0 for any free one. */
export function portNumber(value: string): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed > 65_535)
    throw new InvalidArgumentError('expected a port number from 0 to 65535 (0: any free port)');
  return parsed;
}
