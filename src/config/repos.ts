import { homedir } from 'node:os';
import path from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, YAMLSeq } from 'yaml';
import { channelIdProblem } from './channel-ids.js';
import { layoutOf } from './edit.js';
import type { Config } from './schema.js';

/** The channels a repository may be reached from (`repos[].channels` keys). */
export const REPO_CHANNELS = ['terminal', 'telegram', 'discord', 'slack', 'web'] as const;
export type RepoChannel = (typeof REPO_CHANNELS)[number];

export type RepoEntry = Config['repos'][number];

export function isRepoChannel(value: string): value is RepoChannel {
  return (REPO_CHANNELS as readonly string[]).includes(value);
}

/** A mistake in what the user asked for (a flag's value), said as one line. */
export class RepoSpecError extends Error {
  override name = 'RepoSpecError';
}

/**
 * `telegram:123456789`, `discord:1122334455` (or just `1122334455`), `slack:C0123ABCD` → channel and id. Numeric ids become numbers
 * when they fit exactly (Telegram chat ids may be negative); a longer one (a 19-digit Discord snowflake) stays
 * a string, so it is never rounded.
 */
export function parseChannelSpec(spec: string): { channel: RepoChannel; id: string | number } {
  // A bare id is a Discord channel, as in seed 000's `add-repo --channel 1122334455`.
  if (/^\d{5,20}$/.test(spec)) return parseChannelSpec(`discord:${spec}`);
  const colon = spec.indexOf(':');
  const channel = colon < 0 ? spec : spec.slice(0, colon);
  const id = colon < 0 ? '' : spec.slice(colon + 1).trim();
  if (!isRepoChannel(channel))
    throw new RepoSpecError(
      `--channel ${spec}: unknown channel "${channel}"; choose from ${REPO_CHANNELS.join(', ')}`,
    );
  if (!id) throw new RepoSpecError(`--channel ${spec}: expected <channel>:<id>, e.g. telegram:123456789`);
  const problem = channelIdProblem(channel, id, (example) => `${channel}:${example}`);
  if (problem) throw new RepoSpecError(`--channel ${spec}: ${problem}`);
  const asNumber = /^-?\d+$/.test(id) ? Number(id) : NaN;
  return { channel, id: Number.isSafeInteger(asNumber) ? asNumber : id };
}

/** Several `--channel` values → the `channels:` record of a repo, ids grouped per channel, without repeats. */
export function parseChannelSpecs(specs: string[]): Record<string, Array<string | number>> {
  const channels: Record<string, Array<string | number>> = {};
  for (const spec of specs) {
    const { channel, id } = parseChannelSpec(spec);
    const ids = (channels[channel] ??= []);
    if (!ids.some((existing) => String(existing) === String(id))) ids.push(id);
  }
  return channels;
}

/** A repo name is one word (chat commands take it as an argument). */
export const REPO_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** The default name of a repo in `dir`: its folder's name, made one word. */
export function defaultRepoName(dir: string): string {
  const name = path
    .basename(dir)
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '');
  return name || 'repo';
}

/** `~` and `~/x` → the home folder; a relative path → absolute from `base`. */
export function expandDir(dir: string, base: string, home = homedir()): string {
  const expanded = dir === '~' ? home : dir.startsWith('~/') ? path.join(home, dir.slice(2)) : dir;
  return path.resolve(base, expanded);
}

/**
 * Appends `entry` to `repos:` in the YAML text, keeping its comments and layout; `repos:` is created when
 * missing. Channel id lists and agent arguments are written in flow style (`telegram: [123456789]`).
 */
export function appendRepo(text: string, entry: RepoEntry): string {
  const doc = parseDocument(text);
  if (doc.errors.length > 0)
    throw new RepoSpecError(`not valid YAML; fix it first: ${doc.errors[0]!.message.split('\n')[0]}`);
  if (isMap(doc.contents) && doc.contents.flow && doc.contents.items.length === 0) doc.contents.flow = false;
  const node = doc.createNode(entry);
  for (const key of ['args', 'channels']) {
    const value = node.get(key, true);
    if (isSeq(value)) value.flow = true;
    if (isMap(value)) for (const pair of value.items) if (isSeq(pair.value)) pair.value.flow = true;
  }
  const repos = doc.get('repos', true);
  if (repos === undefined || (isScalar(repos) && repos.value == null)) {
    const seq = new YAMLSeq(doc.schema);
    seq.items.push(node);
    doc.set('repos', seq);
  } else if (isSeq(repos)) {
    if (repos.flow && repos.items.length === 0) repos.flow = false;
    repos.items.push(node);
  } else {
    throw new RepoSpecError('repos: expected a list of repositories');
  }
  // The yaml library pads flow lists (`[ 1 ]`); keep the file's own way, else write them as the README does.
  return doc.toString(layoutOf(text));
}

/** The line of a key in the YAML text (`['repos', 1, 'dir']` → 7), or of its deepest existing parent. */
export function keyLines(text: string): (key: Array<string | number>) => number {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  return (key) => {
    let node: unknown = doc.contents;
    let offset = (node as { range?: [number] } | null)?.range?.[0] ?? 0;
    for (const part of key) {
      let next: unknown;
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(part));
        if (pair) offset = (pair.key as { range?: [number] }).range?.[0] ?? offset;
        next = pair?.value;
      } else if (isSeq(node)) {
        next = node.items[Number(part)];
        offset = (next as { range?: [number] } | undefined)?.range?.[0] ?? offset;
      }
      if (next === undefined) break;
      node = next;
    }
    return lineCounter.linePos(offset).line;
  };
}
