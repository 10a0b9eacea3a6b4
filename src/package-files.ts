import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where this agent-bridge's own files are, whichever way its code runs: from its TypeScript sources (the
 * tests), from dist/ as tsc writes it (the benchmarks), or from the bundle the command runs (dist/bundle/).
 * Each is found from the package root, never from where one module happens to sit.
 */
const here = fileURLToPath(import.meta.url);

/** The code runs from its sources (src/*.ts, through tsx). */
export const FROM_SOURCES = here.endsWith('.ts');

/** The folder with agent-bridge's package.json: the first one up from this code. */
export const PACKAGE_ROOT = findRoot(path.dirname(here));

/** A file of the package, by its path from the package root. */
export function packageFile(...parts: string[]): string {
  return path.join(PACKAGE_ROOT, ...parts);
}

let version: string | null = null;

/** This agent-bridge's version (package.json). */
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string }).version;
  return version;
}

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}
