import {
  chmodSync,
  existsSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { parseDocument, type ToStringOptions } from 'yaml';

/**
 * Sets keys in a YAML config file, keeping its comments and layout, and leaves the file private (0600): it
 * may hold tokens. Creates the file when missing.
 */
export function editConfigFile(
  file: string,
  changes: Array<{ path: Array<string | number>; value: unknown }>,
): void {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : NEW_CONFIG_TEXT;
  const doc = parseDocument(text);
  if (doc.errors.length > 0)
    throw new Error(`${file} is not valid YAML; fix it first: ${doc.errors[0]!.message.split('\n')[0]}`);
  for (const change of changes) doc.setIn(change.path, change.value);
  writeFileSync(file, doc.toString(layoutOf(text)), { mode: 0o600 });
  chmodSync(file, 0o600);
}

/**
 * How to write a config file's YAML again the way it is written: flow lists as the file has them (`[4242]`, the
 * yaml library's own `[ 4242 ]` only where the file pads them, or the README's `[4242]` when it has none), and
 * long lines and lists kept on their line, never folded at 80 columns.
 */
export function layoutOf(text: string): ToStringOptions {
  const padded = /\[ [^\]\s]/.test(text) && !/\[[^\]\s]/.test(text);
  return { flowCollectionPadding: padded, lineWidth: 0 };
}

/** What a config file agent-bridge creates starts with. */
export const NEW_CONFIG_TEXT = '# agent-bridge configuration (see README: Configuration)\n';

/**
 * Replaces a config file's text all at once (a temporary file renamed over it, so a crash never leaves half a
 * file), private to the user (0600). A symlinked file is written where the link points.
 */
export function writeConfigFile(file: string, text: string): void {
  const target = existsSync(file) ? realpathSync(file) : file;
  const temp = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  try {
    writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
    chmodSync(temp, 0o600);
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
