// The terminal driver against the real Claude Code in a PTY, made exact by its hooks (the way agent-bridge runs
// Claude by default), offline against the fake Anthropic API.
import { getAgent } from '../../src/agents/registry.js';
import { buildLaunchArgs } from '../../src/agents/types.js';
import { startFakeAnthropic } from '../fakes/anthropic/server.js';
import { claudeBinary, prepareClaudeHome } from '../support/claude-env.js';
import { driverContract } from './driver-contract.js';

driverContract({
  name: 'terminal, Claude Code with its hooks (real CLI)',
  timeoutMs: 40_000,
  prepare: async (cwd) => {
    const api = await startFakeAnthropic();
    const home = await prepareClaudeHome({ baseUrl: api.url, cwd });
    const spec = getAgent('claude');
    return {
      spec,
      command: claudeBinary(),
      args: (resume) => buildLaunchArgs(spec, resume ? { resume } : {}),
      env: home.env,
      hooks: true,
      modelSaw: () => JSON.stringify(api.messageRequests().map((r) => r.messages)),
      close: async () => {
        await api.close();
        await home.cleanup();
      },
    };
  },
});
