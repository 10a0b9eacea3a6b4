// The ACP driver against the fake ACP agent: the contract's fast path (no model, no real CLI).
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { getAgent } from '../../src/agents/registry.js';
import { FAKE_ACP_AGENT } from '../support/fake-acp.js';
import { driverContract } from './driver-contract.js';

driverContract({
  name: 'ACP, the fake ACP agent',
  timeoutMs: 20_000,
  prepare: async (cwd) => {
    const log = path.join(cwd, 'fake-acp-prompts.log');
    return {
      spec: getAgent('acp'),
      command: process.execPath,
      args: () => [FAKE_ACP_AGENT],
      env: { ...(process.env as Record<string, string>), FAKE_ACP_STATE: cwd },
      structured: (resume) => (resume ? { resume } : {}),
      modelSaw: () => (existsSync(log) ? readFileSync(log, 'utf8') : ''),
      close: async () => undefined,
    };
  },
});
