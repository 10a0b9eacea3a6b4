import type { AgentSpec } from '../types.js';
import { genericScreens } from '../generic-screens.js';

/** Any command line: `agent-bridge run custom -- <command> [args...]`. The command is the first argument. */
export const custom: AgentSpec = {
  id: 'custom',
  displayName: 'Custom command',
  description: 'Any command line, given after --',
  installHint: 'give the command after --, e.g. agent-bridge run custom -- python3 -i',
  search: { homePaths: [], names: [] },
  startupPrompts: [],
  screens: genericScreens,
  commandFromArgs: true,
};
