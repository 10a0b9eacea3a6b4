import { UsageError } from './errors.js';

/** Ctrl-\ detaches by default, as in dtach and abduco (tmux users: its prefix + d is two keys; this is one). */
export const DEFAULT_DETACH_KEY = '^\\';

/**
 * The byte a `--detach-key` names: `^X` for Ctrl-X (a letter, or one of `@[\]^_`), or `none` for no detach
 * key at all (every key reaches the agent). Anything else is a usage error that says what to write.
 */
export function parseDetachKey(text: string): number | null {
  if (text === 'none') return null;
  const match = /^\^([A-Za-z@[\\\]^_])$/.exec(text);
  if (!match) {
    throw new UsageError(
      `--detach-key ${text}: write a control key as ^ and a letter (^\\, ^], ^Q, ...), or none`,
    );
  }
  return match[1]!.toUpperCase().charCodeAt(0) & 0x1f;
}

/** How a person would write the key in a message: `Ctrl-\`. */
export function describeDetachKey(key: number): string {
  return `Ctrl-${String.fromCharCode(key | 0x40)}`;
}

/**
 * Splits what a person typed at the detach key: the keys before it go to the agent, and whether it was
 * pressed. Keys after it in the same read are dropped (the person left).
 */
export function splitAtDetachKey(chunk: Buffer, key: number | null): { keys: Buffer; detach: boolean } {
  const at = key === null ? -1 : chunk.indexOf(key);
  return at < 0 ? { keys: chunk, detach: false } : { keys: chunk.subarray(0, at), detach: true };
}
