import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isMap, isSeq, LineCounter, parseDocument, type Document, type YAMLError } from 'yaml';
import type { ZodIssue } from 'zod';
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
  return { file, config: parseConfig(readFileSync(file, 'utf8'), file, env) };
}

/** Parses YAML, expands ${VAR} in strings, validates; every error names the file, line and key. */
export function parseConfig(text: string, file: string, env: NodeJS.ProcessEnv = process.env): Config {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  if (doc.errors.length > 0) throw new ConfigError(describeYamlError(doc.errors, file, lineCounter));
  const raw = expandEnv(doc.toJS() ?? {}, env, (key, name) => {
    throw new ConfigError(
      `${file}:${lineOf(doc, lineCounter, key)}: ${key.join('.')}: environment variable ${name} is not set`,
    );
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
  const where = key.length ? key.join('.') : '(top level)';
  let message = issue.message;
  if (issue.code === 'unrecognized_keys')
    message = `unknown key ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  else if (issue.code === 'invalid_type') {
    const found = valueAt(raw, key);
    message =
      found === undefined
        ? `missing: expected ${issue.expected}`
        : `expected ${issue.expected}, found ${JSON.stringify(found)}`;
  }
  const target = issue.code === 'unrecognized_keys' ? [...key, issue.keys[0]!] : key;
  return `${file}:${lineOf(doc, lines, target)}: ${where}: ${message}`;
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

type Missing = (key: Array<string | number>, name: string) => never;

function expandEnv(
  value: unknown,
  env: NodeJS.ProcessEnv,
  missing: Missing,
  key: Array<string | number> = [],
): unknown {
  if (typeof value === 'string') {
    return value.replace(
      /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g,
      (_, name: string) => env[name] ?? missing(key, name),
    );
  }
  if (Array.isArray(value)) return value.map((item, i) => expandEnv(item, env, missing, [...key, i]));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, expandEnv(v, env, missing, [...key, k])]),
    );
  }
  return value;
}
