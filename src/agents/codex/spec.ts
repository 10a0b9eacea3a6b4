import type { AgentSpec } from '../types.js';
import { codexScreens } from './screens.js';

export const codex: AgentSpec = {
  id: 'codex',
  displayName: 'Codex',
  description: "OpenAI's coding agent",
  installHint: 'npm install -g @openai/codex',
  search: {
    homePaths: ['{HOME}/.codex/local/codex'],
    names: ['codex', 'codex-code'],
    overrideEnv: 'AGENT_BRIDGE_CODEX_PATH',
  },
  skipPermissionsFlag: '--dangerously-bypass-approvals-and-sandbox',
  modelFlag: '--model',
  resumeArgs: (resume) => (resume === true ? ['resume', '--last'] : ['resume', resume]),
  resumeIsSubcommand: true,
  // Without it a background app-server outlives the run and breaks the next one.
  baseArgs: ['--no-daemon'],
  startupPrompts: [
    // In a git repository Codex first asks whether to trust the folder; option 1, highlighted, trusts it. A digit
    // only moves the highlight there: Enter chooses (test/golden/prompts/codex/folder-trust).
    { name: 'folder trust', pattern: /trust (?:this folder|the contents of this directory)/i, answer: '\r' },
  ],
  screens: codexScreens,
  // JSON-RPC over stdio; model, approval policy and resume travel in the protocol (thread/start, thread/resume).
  structured: {
    protocol: 'codex-app-server',
    modeArgs: ['app-server'],
    subcommand: true,
    flags: [],
    probe: { args: ['app-server', '--help'], pattern: /generate-ts/ },
  },
};
