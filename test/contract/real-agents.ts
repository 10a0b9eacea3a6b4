// A real agent CLI under its structured driver, offline against its fake model API, as a contract subject.
import { getAgent } from '../../src/agents/registry.js';
import { buildStructuredArgs } from '../../src/agents/types.js';
import { devBinary } from '../support/agent-homes.js';
import { claudeBinary } from '../support/claude-env.js';
import { REAL_AGENTS, type RealAgent } from '../support/structured-agents.js';
import type { ContractSubject } from './driver-contract.js';

const BINARY: Record<RealAgent['agent'], () => string> = {
  claude: claudeBinary,
  gemini: () => devBinary('gemini'),
  copilot: () => devBinary('copilot'),
  codex: () => devBinary('codex'),
};

export function structuredSubject(
  name: RealAgent['agent'],
  title: string,
  skip?: ContractSubject['skip'],
): ContractSubject {
  return {
    name: title,
    timeoutMs: 40_000,
    ...(skip ? { skip } : {}),
    prepare: async (cwd) => {
      const real = await REAL_AGENTS[name](cwd);
      const spec = getAgent(name);
      return {
        spec,
        command: BINARY[name](),
        args: (resume) => buildStructuredArgs(spec, resume ? { resume } : {}),
        env: real.env,
        structured: (resume) => (resume ? { resume } : {}),
        modelSaw: () => real.modelSaw(),
        close: () => real.close(),
      };
    },
  };
}
