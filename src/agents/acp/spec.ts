import type { AgentSpec } from '../types.js';
import { genericScreens } from '../generic-screens.js';

/**
 * Any agent that speaks the Agent Client Protocol over stdio, given after `--`:
 * `agent-bridge run acp -- opencode acp`. It has no screen to read: only the structured driver runs it.
 */
export const acp: AgentSpec = {
  id: 'acp',
  displayName: 'ACP agent',
  description: 'Any agent speaking the Agent Client Protocol, command given after --',
  installHint: 'give the agent command after --, e.g. agent-bridge run acp -- opencode acp',
  search: { homePaths: [], names: [] },
  startupPrompts: [],
  screens: genericScreens,
  commandFromArgs: true,
  terminal: false,
  structured: { protocol: 'acp', modeArgs: [], flags: [] },
};
