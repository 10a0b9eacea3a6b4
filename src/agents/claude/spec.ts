import type { AgentSpec } from '../types.js';
import { claudeScreens } from './screens.js';

export const claude: AgentSpec = {
  id: 'claude',
  displayName: 'Claude Code',
  description: "Anthropic's coding agent",
  installHint: 'npm install -g @anthropic-ai/claude-code',
  search: {
    homePaths: ['{HOME}/.claude/local/claude'],
    names: ['claude', 'claude-code'],
    overrideEnv: 'AGENT_BRIDGE_CLAUDE_PATH',
  },
  skipPermissionsFlag: '--dangerously-skip-permissions',
  modelFlag: '--model',
  permissionModeArgs: (mode) => ['--permission-mode', mode],
  resumeArgs: (resume) => (resume === true ? ['--continue'] : ['--resume', resume]),
  startupPrompts: [
    // "Quick safety check ... ❯ 1. Yes, I trust this folder / 2. No, exit"; option 1 is highlighted.
    { name: 'folder trust', pattern: /Yes, I trust this folder/, answer: '\r' },
  ],
  screens: claudeScreens,
  // Hooks go in a settings file of our own: the user's settings stay untouched.
  hooks: { protocol: 'claude-code', args: (settingsFile) => ['--settings', settingsFile] },
  // stream-json with permission questions on stdio (agent-facts 12-stdio.jsonl); not the published ACP adapter,
  // which disallows AskUserQuestion.
  structured: {
    protocol: 'claude-stream-json',
    modeArgs: [
      '-p',
      '--input-format',
      'stream-json',
      '--output-format',
      'stream-json',
      '--verbose',
      '--permission-prompt-tool',
      'stdio',
    ],
    flags: ['model', 'skipPermissions', 'permissionMode', 'resume'],
    probe: { args: ['--help'], pattern: /--input-format/ },
  },
};
