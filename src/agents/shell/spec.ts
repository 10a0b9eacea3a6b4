import type { AgentSpec } from '../types.js';
import { shellScreens } from './screens.js';

/** A plain shell: `$SHELL`, else /bin/bash (PowerShell on Windows). Resolved at launch, see registry. */
export const shell: AgentSpec = {
  id: 'shell',
  displayName: 'Shell',
  description: 'Your login shell ($SHELL, else /bin/bash)',
  installHint: 'set $SHELL or install bash',
  search: {
    homePaths: [],
    names: process.platform === 'win32' ? ['powershell', 'cmd'] : ['bash', 'sh'],
    overrideEnv: 'SHELL',
  },
  startupPrompts: [],
  screens: shellScreens,
};
