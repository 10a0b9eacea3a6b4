import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseDocument } from 'yaml';

/**
 * Sets keys in a YAML config file, keeping its comments and layout, and leaves the file private (0600): it
 * may hold tokens. Creates the file when missing.
 */
export function editConfigFile(
  file: string,
  changes: Array<{ path: Array<string | number>; value: unknown }>,
): void {
  const text = existsSync(file)
    ? readFileSync(file, 'utf8')
    : '# agent-bridge configuration (see README: Configuration)\n';
  const doc = parseDocument(text);
  if (doc.errors.length > 0)
    throw new Error(`${file} is not valid YAML; fix it first: ${doc.errors[0]!.message.split('\n')[0]}`);
  for (const change of changes) doc.setIn(change.path, change.value);
  writeFileSync(file, doc.toString(), { mode: 0o600 });
  chmodSync(file, 0o600);
}
