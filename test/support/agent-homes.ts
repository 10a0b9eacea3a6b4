// Throwaway HOMEs and environments that run the real Gemini CLI, Copilot CLI and Codex offline against the
// fake model APIs in test/fakes (agent-facts README: the env each needs).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface AgentHome {
  home: string;
  /** The complete environment for the child (not merged into process.env). */
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

function baseEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {
    HOME: home,
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
  };
  if (process.env.SHELL) env.SHELL = process.env.SHELL;
  return env;
}

async function newHome(prefix: string): Promise<string> {
  return realpath(await mkdtemp(join(tmpdir(), prefix)));
}

const cleanup = (home: string) => () =>
  rm(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });

/** Gemini CLI: an API key, the fake's base URL, the key auth chosen and `cwd` trusted. */
export async function prepareGeminiHome(options: { baseUrl: string; cwd: string }): Promise<AgentHome> {
  const home = await newHome('ab-gemini-home-');
  mkdirSync(join(home, '.gemini'));
  writeFileSync(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }),
  );
  const cwd = await realpath(options.cwd);
  writeFileSync(join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [cwd]: 'TRUST_FOLDER' }));
  return {
    home,
    env: { ...baseEnv(home), GEMINI_API_KEY: 'fake-gemini-key', GOOGLE_GEMINI_BASE_URL: options.baseUrl },
    cleanup: cleanup(home),
  };
}

/** Copilot CLI: offline, its OpenAI-compatible provider pointed at the fake. */
export async function prepareCopilotHome(options: { baseUrl: string }): Promise<AgentHome> {
  const home = await newHome('ab-copilot-home-');
  return {
    home,
    env: {
      ...baseEnv(home),
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_BASE_URL: `${options.baseUrl}/v1`,
      COPILOT_PROVIDER_TYPE: 'openai',
      COPILOT_PROVIDER_API_KEY: 'fake-openai-key',
      COPILOT_MODEL: 'gpt-4.1',
      COPILOT_AUTO_UPDATE: 'false',
    },
    cleanup: cleanup(home),
  };
}

/** Codex: a `fake` model provider on the fake's Responses API (agent-facts: `wire_api = "responses"`). */
export async function prepareCodexHome(options: { baseUrl: string }): Promise<AgentHome> {
  const home = await newHome('ab-codex-home-');
  const codexHome = join(home, '.codex');
  mkdirSync(codexHome);
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      'model = "fake-model"',
      'model_provider = "fake"',
      '[model_providers.fake]',
      'name = "fake"',
      `base_url = "${options.baseUrl}/v1"`,
      'env_key = "FAKE_OPENAI_KEY"',
      'wire_api = "responses"',
      '',
    ].join('\n'),
  );
  return {
    home,
    env: { ...baseEnv(home), CODEX_HOME: codexHome, FAKE_OPENAI_KEY: 'fake-openai-key' },
    cleanup: cleanup(home),
  };
}

/** node_modules/.bin/<name>, found by walking up from this file to the repository root. */
export function devBinary(name: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'node_modules', '.bin', name);
    if (existsSync(join(dir, 'package.json')) && existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`node_modules/.bin/${name} not found`);
    dir = parent;
  }
}
