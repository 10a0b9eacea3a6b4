// The ACP driver against the fake ACP agent: the contract's fast path (no model, no real CLI).
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getAgent } from '../../src/agents/registry.js';
import { driverContract } from './driver-contract.js';

const FAKE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../fakes/acp-agent/fake-acp-agent.mjs',
);

driverContract({
  name: 'ACP, the fake ACP agent',
  timeoutMs: 20_000,
  prepare: async (cwd) => {
    const log = path.join(cwd, 'fake-acp-prompts.log');
    return {
      spec: getAgent('acp'),
      command: process.execPath,
      args: () => [FAKE],
      env: { ...(process.env as Record<string, string>), FAKE_ACP_STATE: cwd },
      structured: (resume) => (resume ? { resume } : {}),
      modelSaw: () => (existsSync(log) ? readFileSync(log, 'utf8') : ''),
      close: async () => undefined,
    };
  },
});
