import { Document, isMap, isPair, isSeq, parseDocument, YAMLSeq, type YAMLMap } from 'yaml';
import { layoutOf } from './edit.js';
import type { Isolation, PermissionMode, RepoConfig, ThreadEntry } from './schema.js';

/** What a thread's session runs with, after the merge. */
export interface ThreadSettings {
  model?: string;
  permission?: PermissionMode;
  isolation: Isolation;
  /** As written in the config (expand it against the config's folder). */
  dir: string;
  startup: boolean;
  name?: string;
}

/**
 * Seed 001's three-layer merge: the thread's own entry, else the project's `thread:` defaults, else the
 * project (model, permission, isolation). The folder merges in two layers: the thread's, else the project's.
 */
export function threadSettings(repo: RepoConfig, entry?: ThreadEntry): ThreadSettings {
  const model = entry?.model ?? repo.thread?.model ?? repo.model;
  const permission = entry?.permission ?? repo.thread?.permission ?? repo.permission;
  return {
    ...(model !== undefined ? { model } : {}),
    ...(permission !== undefined ? { permission } : {}),
    isolation: entry?.isolation ?? repo.thread?.isolation ?? repo.isolation ?? 'none',
    dir: entry?.dir ?? repo.dir,
    startup: entry?.startup ?? false,
    ...(entry?.name !== undefined ? { name: entry.name } : {}),
  };
}

/**
 * How a model and a permission mode become launch options: `bypassPermissions` is the agent's skip-permissions
 * flag, another mode its permission mode, `default` nothing.
 */
export function launchSettings(settings: { model?: string; permission?: PermissionMode }): {
  model?: string;
  permissionMode?: string;
  skipPermissions?: boolean;
} {
  const { model, permission } = settings;
  return {
    ...(model ? { model } : {}),
    ...(permission === 'bypassPermissions'
      ? { skipPermissions: true }
      : permission
        ? { permissionMode: permission }
        : {}),
  };
}

/** The repository's entry for a thread, if it has one (an entry without `channel` matches any channel). */
export function findThreadEntry(
  repo: RepoConfig,
  channel: string,
  threadId: string,
): ThreadEntry | undefined {
  return repo.threads?.find(
    (t) => String(t.id) === threadId && (t.channel === undefined || t.channel === channel),
  );
}

/**
 * Adds a thread entry under the named repository in the YAML text. Threads created in chat are written down
 * this way, so their settings can be edited and they survive a restart. Only the entry is written: the rest
 * of the file stays as it is, byte for byte (comments, flow lists such as `[4242]`, blank lines, quotes).
 */
export function appendThreadEntry(text: string, repoName: string, entry: ThreadEntry): string {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new Error(`not valid YAML: ${doc.errors[0]!.message.split('\n')[0]}`);
  const repos = doc.get('repos', true);
  if (!isSeq(repos)) throw new Error('repos: expected a list of repositories');
  const repo = repos.items.find((item) => isMap(item) && String(item.get('name')) === repoName);
  if (!isMap(repo)) throw new Error(`no repository named ${repoName}`);
  const threads = repo.get('threads', true);
  const inserted = insertThread(text, repos, repo, threads, entry);
  if (inserted !== null) return inserted;
  // A layout the entry cannot just be written into (a repository or its threads in flow style, `{…}` or `[…]`,
  // an empty `threads:`): the file is written again, as close to its own layout as the yaml library keeps it.
  const node = doc.createNode(entry);
  if (isSeq(threads)) threads.items.push(node);
  else {
    const seq = new YAMLSeq(doc.schema);
    seq.items.push(node);
    repo.set('threads', seq);
  }
  return doc.toString(layoutOf(text));
}

/**
 * The text with the entry written in after the repository's last thread (or with a `threads:` list after its
 * last key), indented as the lines around it, and nothing else changed; null where the repository or its
 * threads are not block YAML (one entry a line).
 */
function insertThread(
  text: string,
  repos: YAMLSeq,
  repo: YAMLMap,
  threads: unknown,
  entry: ThreadEntry,
): string | null {
  if (repos.flow || repo.flow || repo.items.length === 0) return null;
  const layout = layoutOf(text);
  let column: number | null;
  let part: string;
  let after: number | null;
  if (threads === undefined) {
    column = columnOf(text, rangeOf(repo.items[0]!.key)?.[0]);
    // A list's `-` indented from its key, or right under it: as the file writes `- name:` under `repos:`.
    const reposDash = dashColumn(text, repos.items[0]);
    part = new Document({ threads: [entry] }).toString({ ...layout, indentSeq: reposDash !== 0 });
    after = contentEnd(repo);
  } else {
    if (!isSeq(threads) || threads.flow || threads.items.length === 0) return null;
    column = dashColumn(text, threads.items[0]);
    part = new Document([entry]).toString(layout);
    after = contentEnd(threads);
  }
  if (column === null || after === null) return null;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  // After the line the last value ends on (with its comment).
  const newline = after > 0 && text[after - 1] === '\n' ? after - 1 : text.indexOf('\n', after);
  const at = newline < 0 ? text.length : newline + 1;
  const lines = part
    .trimEnd()
    .split('\n')
    .map((line) => ' '.repeat(column) + line);
  return `${text.slice(0, at)}${newline < 0 ? eol : ''}${lines.join(eol)}${eol}${text.slice(at)}`;
}

function rangeOf(node: unknown): readonly number[] | undefined {
  return (node as { range?: readonly number[] } | null)?.range ?? undefined;
}

/** The column of `offset` in the text. */
function columnOf(text: string, offset: number | undefined): number | null {
  return offset === undefined ? null : offset - (text.lastIndexOf('\n', offset - 1) + 1);
}

/** The column of the `-` a block list's item starts with, or null when it has none there. */
function dashColumn(text: string, item: unknown): number | null {
  let at = rangeOf(item)?.[0];
  if (at === undefined) return null;
  do at--;
  while (at >= 0 && /\s/.test(text[at]!));
  return at >= 0 && text[at] === '-' ? columnOf(text, at) : null;
}

/** Where a block collection's last value ends in the text (not its comments or blank lines after it). */
function contentEnd(node: unknown): number | null {
  if ((isMap(node) || isSeq(node)) && !node.flow) {
    const last = node.items.at(-1);
    if (last === undefined) return null;
    if (!isPair(last)) return contentEnd(last);
    return last.value === null ? (rangeOf(last.key)?.[1] ?? null) : contentEnd(last.value);
  }
  return rangeOf(node)?.[1] ?? null;
}
