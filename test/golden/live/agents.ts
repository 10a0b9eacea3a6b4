// Each real CLI offline against its fake model API, set up to show its start-up dialogs too (folder trust,
// Claude's API key): its command, arguments, environment, and what its model was told.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeAnthropic } from '../../fakes/anthropic/server.js';
import { startFakeGemini } from '../../fakes/gemini/server.js';
import { startFakeOpenAi, type OpenAiRequest } from '../../fakes/openai/server.js';
import {
  devBinary,
  prepareCodexHome,
  prepareCopilotHome,
  prepareGeminiHome,
} from '../../support/agent-homes.js';
import { claudeBinary, prepareClaudeHome } from '../../support/claude-env.js';
import type { LiveCliOptions } from './live-cli.js';
import { claudeModel, codexModel, copilotModel, geminiModel } from './models.js';

export type LiveAgentId = 'claude' | 'codex' | 'gemini' | 'copilot';

export interface LiveAgent {
  /** How to start the CLI in `cwd` (a fresh, untrusted folder). */
  options: LiveCliOptions;
  /** The tool results the CLI sent its model, in order (what an answered dialog told it). */
  toolResults(): string[];
  /** The user messages the CLI sent its model, in order (words typed after a "No"). */
  userMessages(): string[];
  close(): Promise<void>;
}

/**
 * Prepares `agent` to run in `cwd` (which must exist): its fake model API and a throwaway home. The folder is
 * not trusted yet (the CLI asks), unless `trusted` (Gemini CLI).
 */
export async function prepareLiveAgent(agent: LiveAgentId, cwd: string, trusted = false): Promise<LiveAgent> {
  return PREPARE[agent](cwd, trusted);
}

function openAiSaw(requests: OpenAiRequest[], api: OpenAiRequest['api']) {
  const main = () => requests.filter((r) => r.api === api && r.toolNames.length > 0);
  return {
    toolResults: () => main().flatMap((r) => (r.toolOutput !== undefined ? [r.toolOutput] : [])),
    userMessages: () => main().flatMap((r) => (r.toolOutput !== undefined ? [] : [r.lastUserText])),
  };
}

const PREPARE: Record<LiveAgentId, (cwd: string, trusted: boolean) => Promise<LiveAgent>> = {
  async claude(cwd) {
    const api = await startFakeAnthropic(claudeModel);
    const main = () => api.messageRequests().filter((r) => !r.isSideCall);
    const home = await prepareClaudeHome({ baseUrl: api.url, cwd, trust: false });
    // Unapproved, so that the CLI asks whether to use the key.
    const file = join(home.home, '.claude.json');
    const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...config, customApiKeyResponses: { approved: [], rejected: [] } }));
    return {
      options: { agent: 'claude', command: claudeBinary(), args: [], cwd, env: home.env },
      toolResults: () => main().flatMap((r) => (r.toolResult ? [r.toolResult.content] : [])),
      userMessages: () => main().flatMap((r) => (r.toolResult ? [] : [r.lastUserText])),
      close: async () => {
        await api.close();
        await home.cleanup();
      },
    };
  },

  async codex(cwd) {
    const api = await startFakeOpenAi(codexModel(cwd));
    const home = await prepareCodexHome({ baseUrl: api.url });
    // A git repository: Codex asks to trust it. Read-only, so that every write asks first.
    execFileSync('git', ['init', '-q'], { cwd });
    return {
      options: {
        agent: 'codex',
        command: devBinary('codex'),
        args: ['--no-daemon', '--ask-for-approval', 'on-request', '--sandbox', 'read-only'],
        cwd,
        env: home.env,
      },
      ...openAiSaw(api.requests, 'responses'),
      close: async () => {
        await api.close();
        await home.cleanup();
      },
    };
  },

  async gemini(cwd, trusted) {
    const api = await startFakeGemini(geminiModel(cwd));
    const home = await prepareGeminiHome({ baseUrl: api.url, cwd });
    if (!trusted) writeFileSync(join(home.home, '.gemini', 'trustedFolders.json'), '{}');
    return {
      options: { agent: 'gemini', command: devBinary('gemini'), args: [], cwd, env: home.env },
      toolResults: () => api.turns().flatMap((r) => (r.toolResult ? [r.toolResult.output] : [])),
      userMessages: () => api.turns().flatMap((r) => (r.toolResult ? [] : [r.lastUserText])),
      close: async () => {
        await api.close();
        await home.cleanup();
      },
    };
  },

  async copilot(cwd) {
    const api = await startFakeOpenAi(copilotModel(cwd));
    const home = await prepareCopilotHome({ baseUrl: api.url });
    mkdirSync(join(home.home, '.copilot'), { recursive: true });
    return {
      options: { agent: 'copilot', command: devBinary('copilot'), args: [], cwd, env: home.env },
      ...openAiSaw(api.requests, 'chat'),
      close: async () => {
        await api.close();
        await home.cleanup();
      },
    };
  },
};
