import type { AgentSpec } from '../types.js';
import { geminiScreens } from './screens.js';

export const gemini: AgentSpec = {
  id: 'gemini',
  displayName: 'Gemini CLI',
  description: "Google's coding agent",
  installHint: 'npm install -g @google/gemini-cli',
  search: {
    homePaths: ['{HOME}/.gemini/local/gemini'],
    names: ['gemini'],
    overrideEnv: 'AGENT_BRIDGE_GEMINI_PATH',
  },
  skipPermissionsFlag: '--yolo',
  modelFlag: '--model',
  resumeArgs: (resume) => ['--resume', resume === true ? 'latest' : resume],
  startupPrompts: [
    // "Do you trust the files in this folder? ● 1. Trust folder (proj) 2. Trust parent folder 3. Don't trust"
    {
      name: 'folder trust',
      pattern: /Do you trust the files in this folder\?[\s\S]*1\. Trust folder/,
      answer: '1',
    },
  ],
  screens: geminiScreens,
  // ACP; resumes with session/load. `--acp` since 0.4x (before: --experimental-acp).
  structured: {
    protocol: 'acp',
    modeArgs: ['--acp'],
    flags: ['model', 'skipPermissions'],
    probe: { args: ['--help'], pattern: /^\s*--acp\b/m },
  },
};
