import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isMap, isSeq, LineCounter, parseDocument, visit, type Document, type YAMLError } from 'yaml';
import type { ZodIssue } from 'zod';
import { knownKeysAt } from './known-keys.js';
import { configSchema, type Config } from './schema.js';

export const CONFIG_FILE_NAME = 'agent-bridge.yaml';

/** A configuration problem, said as one line: file, line, key, and what is expected. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** `--config`, else ./agent-bridge.yaml, else <data dir>/agent-bridge.yaml; null when there is none. */
export function findConfigFile(
  explicit: string | undefined,
  dataDir: string,
  cwd = process.cwd(),
): string | null {
  if (explicit) {
    if (!existsSync(explicit)) throw new ConfigError(`${explicit}: no such config file`);
    return path.resolve(explicit);
  }
  for (const candidate of [path.join(cwd, CONFIG_FILE_NAME), path.join(dataDir, CONFIG_FILE_NAME)]) {
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

export interface LoadedConfig {
  file: string | null;
  config: Config;
}

export function loadConfig(file: string | null, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  if (!file) return { file: null, config: configSchema.parse({}) };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`${file}: cannot read it (${firstLine(error)})`);
  }
  return { file, config: parseConfig(text, file, env) };
}

/** Parses YAML, expands ${VAR} in strings, validates; every error names the file, line and key. */
export function parseConfig(text: string, file: string, env: NodeJS.ProcessEnv = process.env): Config {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  if (doc.errors.length > 0) throw new ConfigError(describeYamlError(doc.errors, file, lineCounter));
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 }) ?? {};
  } catch (error) {
    // An alias bomb, or an alias the document cannot resolve.
    throw new ConfigError(`${file}:${lineCounter.linePos(firstAlias(doc)).line}: ${firstLine(error)}`);
  }
  const raw = expandEnv(data, env, (key, problem) => {
    throw new ConfigError(`${file}:${lineOf(doc, lineCounter, key)}: ${keyPath(key)}: ${problem}`);
  });
  const result = configSchema.safeParse(raw);
  if (result.success) return result.data;
  // A misspelt key is the likeliest cause of a "missing" one: report it first.
  const issues = [...result.error.issues].sort(
    (a, b) => Number(b.code === 'unrecognized_keys') - Number(a.code === 'unrecognized_keys'),
  );
  throw new ConfigError(describeIssue(issues[0]!, file, doc, lineCounter, raw));
}

/** YAML errors that mean a line is indented wrongly. */
const INDENTATION_ERRORS = new Set(['BAD_INDENT', 'MULTILINE_IMPLICIT_KEY', 'BLOCK_AS_IMPLICIT_KEY']);
const isIndentation = (error: YAMLError) =>
  INDENTATION_ERRORS.has(error.code) ||
  (error.code === 'MISSING_CHAR' && /without - indicator/.test(error.message));

/**
 * The line to look at: an error spanning lines (a key indented too far joins the line above) is reported at
 * its last line, the one that is out of place, not at the line where the parser first noticed.
 */
function describeYamlError(errors: YAMLError[], file: string, lines: LineCounter): string {
  const lineOfPos = (pos: number) => lines.linePos(pos).line;
  const spanning = errors.find((e) => lineOfPos(Math.max(e.pos[0], e.pos[1] - 1)) > lineOfPos(e.pos[0]));
  const error = spanning ?? errors[0]!;
  const line = lineOfPos(Math.max(error.pos[0], error.pos[1] - 1));
  const hint = isIndentation(error) ? ' (check the indentation of this line)' : '';
  return `${file}:${line}: not valid YAML: ${error.message.split('\n')[0]}${hint}`;
}

function describeIssue(
  issue: ZodIssue,
  file: string,
  doc: Document,
  lines: LineCounter,
  raw: unknown,
): string {
  const key = issue.path.map(String);
  const where = key.length ? keyPath(key) : '(top level)';
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') message = unknownKeys(issue.keys, issue.path);
  else if (issue.code === 'invalid_type') {
    const found = valueAt(raw, key);
    message =
      found === undefined
        ? `missing: expected ${issue.expected}`
        : `expected ${issue.expected}, found ${shortJson(found)}`;
  }
  const target = issue.code === 'unrecognized_keys' ? [...key, issue.keys[0]!] : key;
  return `${file}:${lineOf(doc, lines, target)}: ${where}: ${oneLine(message)}`;
}

/** The keys not known there, and the ones that are: what to write instead. */
function unknownKeys(keys: readonly string[], path: ReadonlyArray<PropertyKey>): string {
  const known = knownKeysAt(
    configSchema,
    path.map((part) => (typeof part === 'number' ? part : String(part))),
  );
  const named = keys.map((k) => JSON.stringify(k)).join(', ');
  const unknown = `unknown key${keys.length > 1 ? 's' : ''} ${named}`;
  return known.length > 0 ? `${unknown} (the keys here: ${known.join(', ')})` : unknown;
}

/** `repos.0.dir`; a key that is not a plain word is quoted, so the message stays one readable line. */
function keyPath(key: Array<string | number>): string {
  return key
    .map((part) => (/^[\w-]+$/.test(String(part)) ? String(part) : JSON.stringify(String(part))))
    .join('.');
}

function shortJson(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 60 ? `${json.slice(0, 59)}…` : json;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function firstLine(error: unknown): string {
  return oneLine((error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '');
}

/** Where the document's first alias is (what toJS fails on), else its start. */
function firstAlias(doc: Document): number {
  let offset = 0;
  visit(doc, {
    Alias(_, node) {
      offset = node.range?.[0] ?? 0;
      return visit.BREAK;
    },
  });
  return offset;
}

function valueAt(value: unknown, key: string[]): unknown {
  let node = value;
  for (const part of key)
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
  return node;
}

/** The line of the deepest existing node on `key`'s path. */
function lineOf(doc: Document, lines: LineCounter, key: Array<string | number>): number {
  let node: unknown = doc.contents;
  let offset = (doc.contents as { range?: [number] } | null)?.range?.[0] ?? 0;
  for (const part of key) {
    if (isMap(node)) {
      const pair = node.items.find(
        (item) => String((item.key as { value?: unknown })?.value ?? item.key) === String(part),
      );
      if (!pair) break;
      offset = (pair.key as { range?: [number] }).range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node)) {
      const item = node.items[Number(part)];
      if (!item) break;
      offset = (item as { range?: [number] }).range?.[0] ?? offset;
      node = item;
    } else break;
  }
  return lines.linePos(offset).line;
}

type Problem = (key: Array<string | number>, problem: string) => never;

/** Expands ${VAR} in strings; a value that contains itself (an alias inside its own anchor) is refused. */
function expandEnv(
  value: unknown,
  env: NodeJS.ProcessEnv,
  fail: Problem,
  key: Array<string | number> = [],
  within: ReadonlySet<object> = new Set(),
): unknown {
  if (typeof value === 'string') {
    return value.replace(
      /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g,
      (_, name: string) => env[name] ?? fail(key, `environment variable ${name} is not set`),
    );
  }
  if (!value || typeof value !== 'object') return value;
  if (within.has(value)) fail(key, 'an alias refers to its own anchor (the value would contain itself)');
  const inner = new Set(within).add(value);
  if (Array.isArray(value)) return value.map((item, i) => expandEnv(item, env, fail, [...key, i], inner));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, expandEnv(v, env, fail, [...key, k], inner)]),
  );
}
