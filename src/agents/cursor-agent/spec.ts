import type { AgentSpec } from '../types.js';
import { genericScreens } from '../generic-screens.js';

export const cursorAgent: AgentSpec = {
  id: 'cursor-agent',
  displayName: 'Cursor Agent',
  description: "Cursor's command-line agent",
  installHint: 'curl https://cursor.com/install -fsS | bash',
  search: {
    homePaths: ['{HOME}/.cursor/local/cursor-agent'],
    names: ['cursor-agent'],
    overrideEnv: 'AGENT_BRIDGE_CURSOR_AGENT_PATH',
  },
  skipPermissionsFlag: '--force',
  modelFlag: '--model',
  resumeArgs: (resume) => (resume === true ? ['resume'] : ['--resume', resume]),
  startupPrompts: [
    {
      name: 'workspace trust',
      pattern: /Trust this workspace|Do you trust the files in this folder\?/i,
      answer: '\r',
    },
  ],
  screens: genericScreens,
};
