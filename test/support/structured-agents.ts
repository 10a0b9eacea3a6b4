// The real agent CLIs under their structured drivers, each offline against its fake model API: one place that
// knows how to prepare each, and how to ask what reached its model. Used by the e2e and contract tests.
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic/server.js';
import { startFakeGemini, type FakeGemini } from '../fakes/gemini/server.js';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/openai/server.js';
import { devBinary, prepareCodexHome, prepareCopilotHome, prepareGeminiHome } from './agent-homes.js';
import { claudeBinary, prepareClaudeHome } from './claude-env.js';

export interface RealAgent {
  /** The agent id in agent-bridge. */
  agent: 'claude' | 'gemini' | 'copilot' | 'codex';
  /** Environment for agent-bridge (and so for the agent): HOME, the fake API, the executable's path. */
  env: Record<string, string>;
  /** Everything the agent sent its model so far, as one string: to see that words reached it. */
  modelSaw(): string;
  /** How many of the agent's model turns carried a tool result. */
  toolResults(): number;
  close(): Promise<void>;
}

type Prepare = (cwd: string) => Promise<RealAgent>;

async function claude(cwd: string): Promise<RealAgent> {
  const api: FakeAnthropic = await startFakeAnthropic();
  const home = await prepareClaudeHome({ baseUrl: api.url, cwd });
  return {
    agent: 'claude',
    env: { ...home.env, AGENT_BRIDGE_CLAUDE_PATH: claudeBinary() },
    modelSaw: () => JSON.stringify(api.messageRequests().map((r) => r.messages)),
    toolResults: () => api.messageRequests().filter((r) => r.toolResult).length,
    close: async () => {
      await api.close();
      await home.cleanup();
    },
  };
}

async function gemini(cwd: string): Promise<RealAgent> {
  const api: FakeGemini = await startFakeGemini();
  const home = await prepareGeminiHome({ baseUrl: api.url, cwd });
  return {
    agent: 'gemini',
    env: { ...home.env, AGENT_BRIDGE_GEMINI_PATH: devBinary('gemini') },
    modelSaw: () => JSON.stringify(api.turns().map((r) => r.contents)),
    toolResults: () => api.turns().filter((r) => r.toolResult).length,
    close: async () => {
      await api.close();
      await home.cleanup();
    },
  };
}

async function copilot(): Promise<RealAgent> {
  const api: FakeOpenAi = await startFakeOpenAi();
  const home = await prepareCopilotHome({ baseUrl: api.url });
  return {
    agent: 'copilot',
    env: { ...home.env, AGENT_BRIDGE_COPILOT_PATH: devBinary('copilot') },
    modelSaw: () => JSON.stringify(api.requests.map((r) => r.body.messages ?? r.body.input)),
    toolResults: () => api.requests.filter((r) => r.toolOutput !== undefined).length,
    close: async () => {
      await api.close();
      await home.cleanup();
    },
  };
}

async function codex(): Promise<RealAgent> {
  const api: FakeOpenAi = await startFakeOpenAi();
  const home = await prepareCodexHome({ baseUrl: api.url });
  return {
    agent: 'codex',
    env: { ...home.env, AGENT_BRIDGE_CODEX_PATH: devBinary('codex') },
    modelSaw: () => JSON.stringify(api.requests.map((r) => r.body.input)),
    toolResults: () => api.requests.filter((r) => r.toolOutput !== undefined).length,
    close: async () => {
      await api.close();
      await home.cleanup();
    },
  };
}

export const REAL_AGENTS: Record<RealAgent['agent'], Prepare> = { claude, gemini, copilot, codex };
