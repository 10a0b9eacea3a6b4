import { isMap, isSeq, parseDocument, YAMLSeq } from 'yaml';
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
 * Adds a thread entry under the named repository in the YAML text, keeping comments and layout. Threads
 * created in chat are written down this way, so their settings can be edited and they survive a restart.
 */
export function appendThreadEntry(text: string, repoName: string, entry: ThreadEntry): string {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new Error(`not valid YAML: ${doc.errors[0]!.message.split('\n')[0]}`);
  const repos = doc.get('repos', true);
  if (!isSeq(repos)) throw new Error('repos: expected a list of repositories');
  const repo = repos.items.find((item) => isMap(item) && String(item.get('name')) === repoName);
  if (!isMap(repo)) throw new Error(`no repository named ${repoName}`);
  const threads = repo.get('threads', true);
  const node = doc.createNode(entry);
  if (isSeq(threads)) threads.items.push(node);
  else {
    const seq = new YAMLSeq(doc.schema);
    seq.items.push(node);
    repo.set('threads', seq);
  }
  return doc.toString();
}
