import type { AgentSpec } from '../types.js';
import { genericScreens } from '../generic-screens.js';

export const aider: AgentSpec = {
  id: 'aider',
  displayName: 'Aider',
  description: 'AI pair programming in your terminal',
  installHint: 'pipx install aider-chat',
  search: {
    homePaths: ['{HOME}/.local/bin/aider'],
    names: ['aider'],
    overrideEnv: 'AGENT_BRIDGE_AIDER_PATH',
  },
  skipPermissionsFlag: '--yes-always',
  modelFlag: '--model',
  // Aider has no conversation ids: it can only reload the chat history of the folder.
  resumeArgs: () => ['--restore-chat-history'],
  startupPrompts: [],
  screens: genericScreens,
};
