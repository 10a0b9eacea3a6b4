import type { AgentSpec } from '../types.js';
import { copilotScreens } from './screens.js';

export const copilot: AgentSpec = {
  id: 'copilot',
  displayName: 'Copilot CLI',
  description: "GitHub's coding agent",
  installHint: 'npm install -g @github/copilot',
  search: {
    homePaths: ['{HOME}/.copilot/local/copilot'],
    names: ['copilot'],
    overrideEnv: 'AGENT_BRIDGE_COPILOT_PATH',
  },
  skipPermissionsFlag: '--allow-all-tools',
  modelFlag: '--model',
  resumeArgs: (resume) => (resume === true ? ['--continue'] : ['--resume', resume]),
  startupPrompts: [
    // "Confirm folder trust ... Do you trust the files in this folder? ❯ 1. Yes 2. Yes, and remember ... 3. No (Esc)"
    { name: 'folder trust', pattern: /Do you trust the files in this folder\?[\s\S]*1\. Yes/, answer: '1' },
  ],
  screens: copilotScreens,
  structured: {
    protocol: 'acp',
    modeArgs: ['--acp'],
    flags: ['model', 'skipPermissions'],
    probe: { args: ['--help'], pattern: /^\s*--acp\b/m },
  },
};
