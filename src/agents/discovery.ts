import { constants as fsConstants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import type { CommandSearch } from './types.js';
import { packageFile } from '../package-files.js';

/** A PATH lookup may hang on network drives: give up after this long (seed 003). */
export const PATH_LOOKUP_TIMEOUT_MS = 5_000;

export interface DiscoveryEnv {
  platform: NodeJS.Platform;
  home: string;
  pathVariable: string;
  env: NodeJS.ProcessEnv;
  /** The agent-bridge package's own `node_modules/.bin`, searched last. */
  projectBin: string | null;
}

export interface Discovered {
  found: boolean;
  /** Absolute path when found; the bare main name otherwise (spawning it fails with a clear error). */
  command: string;
  /** Every location tried, in order, for `agent-bridge agents --json` and error messages. */
  searched: string[];
}

export function currentDiscoveryEnv(): DiscoveryEnv {
  return {
    platform: process.platform,
    home: homedir(),
    pathVariable: process.env.PATH ?? '',
    env: process.env,
    projectBin: packageBinFolder(),
  };
}

/** `node_modules/.bin` of the installed agent-bridge package (its dev tools, such as a bundled agent CLI). */
function packageBinFolder(): string | null {
  return packageFile('node_modules', '.bin');
}

/** The candidate locations for a command, in the seed's order: home installs, PATH names, user/system bins. */
export function candidateLocations(search: CommandSearch, denv: DiscoveryEnv): string[] {
  const windows = denv.platform === 'win32';
  const main = search.names[0] ?? '';
  const fromHome = search.homePaths.map((p) => p.replaceAll('{HOME}', denv.home));
  const fixed =
    windows || !main
      ? []
      : [path.join(denv.home, '.local', 'bin', main), `/usr/local/bin/${main}`, `/usr/bin/${main}`];
  const project = denv.projectBin && main ? [path.join(denv.projectBin, main)] : [];
  return [...fromHome, ...search.names, ...fixed, ...project];
}

export async function discoverCommand(search: CommandSearch, denv: DiscoveryEnv): Promise<Discovered> {
  // An explicit path in the environment wins; when it is not executable, keep searching the usual places.
  const override = search.overrideEnv ? denv.env[search.overrideEnv] : undefined;
  const searched = [...(override ? [override] : []), ...candidateLocations(search, denv)];
  for (const candidate of searched) {
    const hit = path.isAbsolute(candidate)
      ? await firstExecutable(expandWindows(candidate, denv), denv)
      : await lookupOnPath(candidate, denv);
    if (hit) return { found: true, command: hit, searched };
  }
  return { found: false, command: search.names[0] ?? '', searched };
}

/** Finds `name` in PATH without spawning `which`, bounded by a timeout. */
export async function lookupOnPath(name: string, denv: DiscoveryEnv): Promise<string | null> {
  const separator = denv.platform === 'win32' ? ';' : ':';
  const folders = denv.pathVariable.split(separator).filter(Boolean);
  const search = (async () => {
    for (const folder of folders) {
      const hit = await firstExecutable(expandWindows(path.join(folder, name), denv), denv);
      if (hit) return hit;
    }
    return null;
  })();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), PATH_LOOKUP_TIMEOUT_MS);
    timer.unref();
  });
  try {
    return await Promise.race([search, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function expandWindows(candidate: string, denv: DiscoveryEnv): string[] {
  return denv.platform === 'win32' ? [candidate, `${candidate}.exe`, `${candidate}.cmd`] : [candidate];
}

async function firstExecutable(candidates: string[], denv: DiscoveryEnv): Promise<string | null> {
  for (const candidate of candidates) {
    if (await isExecutableFile(candidate, denv)) return candidate;
  }
  return null;
}

async function isExecutableFile(file: string, denv: DiscoveryEnv): Promise<boolean> {
  try {
    const info = await stat(file);
    if (!info.isFile()) return false;
    if (denv.platform !== 'win32') await access(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}
