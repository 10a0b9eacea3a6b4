// Prepares a throwaway HOME and environment so the real Claude Code CLI runs offline against a fake API.
import { existsSync } from 'node:fs';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { endSessionHosts } from './session-hosts.js';

export interface ClaudeHomeOptions {
  /** The fake API, e.g. http://127.0.0.1:PORT (no trailing /v1). */
  baseUrl: string;
  /** Folder claude will run in; trusted unless trust is false. */
  cwd: string;
  /** Pre-accept the folder trust prompt (default true). */
  trust?: boolean;
  /** Defaults to a fake sk-ant-... key. */
  apiKey?: string;
}

export interface ClaudeHome {
  home: string;
  /** The complete environment for the child: use it as is, do not merge it into process.env. */
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

export const FAKE_API_KEY = 'sk-ant-api03-fakefakefakefakefakefakefake-FAKEFAKE';

/** The CLI stores approved custom keys by their last 20 characters. */
function keyFingerprint(apiKey: string): string {
  return apiKey.slice(-20);
}

/** Both spellings of cwd: claude keys projects by the real path, callers may pass a symlinked one. */
async function projectPaths(cwd: string): Promise<string[]> {
  const real = await realpath(cwd).catch(() => cwd);
  return [...new Set([cwd, real])];
}

async function claudeJson(opts: ClaudeHomeOptions, apiKey: string): Promise<Record<string, unknown>> {
  const config: Record<string, unknown> = {
    // Without this the CLI checks api.anthropic.com itself (not the base URL) and exits offline.
    hasCompletedOnboarding: true,
    customApiKeyResponses: { approved: [keyFingerprint(apiKey)], rejected: [] },
  };
  if (opts.trust !== false) {
    const projects: Record<string, unknown> = {};
    for (const path of await projectPaths(opts.cwd)) projects[path] = { hasTrustDialogAccepted: true };
    config.projects = projects;
  }
  return config;
}

function offlineEnv(home: string, baseUrl: string, apiKey: string): Record<string, string> {
  const env: Record<string, string> = {
    HOME: home,
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: apiKey,
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    // Without it the CLI looks up github.com and downloads.claude.ai for the plugin marketplace.
    CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: '1',
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
  };
  // The Bash tool needs a shell; keep the caller's if it has one.
  if (process.env.SHELL) env.SHELL = process.env.SHELL;
  return env;
}

export async function prepareClaudeHome(opts: ClaudeHomeOptions): Promise<ClaudeHome> {
  const apiKey = opts.apiKey ?? FAKE_API_KEY;
  const home = await mkdtemp(join(tmpdir(), 'agent-bridge-claude-home-'));
  await writeFile(join(home, '.claude.json'), JSON.stringify(await claudeJson(opts, apiKey), null, 2));
  return {
    home,
    env: offlineEnv(home, opts.baseUrl, apiKey),
    // Agents that serve let go on in their session hosts write here as they end: they end first.
    cleanup: async () => {
      await endSessionHosts(join(home, '.agent-bridge'));
      await rm(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
}

/** Absolute path of node_modules/.bin/claude, found by walking up from this file to the repo root. */
export function claudeBinary(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'node_modules', '.bin', 'claude');
    if (existsSync(join(dir, 'package.json')) && existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error('node_modules/.bin/claude not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}
