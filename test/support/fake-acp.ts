// The fake ACP agent (test/fakes/acp-agent) under the ACP driver, in a folder of the test's.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getAgent } from '../../src/agents/registry.js';
import { systemClock } from '../../src/core/clock.js';
import { AcpDriver } from '../../src/drivers/structured/acp/acp-driver.js';
import { AgentSession } from '../../src/sessions/agent-session.js';
import type { Store } from '../../src/store/store.js';

/** The executable that starts the fake ACP agent from any folder. */
export const FAKE_ACP_AGENT = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../fakes/acp-agent/fake-acp-agent.mjs',
);

/** The ACP driver running the fake agent in `cwd` (its state kept there too); `ids` gets its session ids. */
export function startFakeAcp(
  cwd: string,
  options: { resume?: string; ids?: string[] } = {},
): Promise<AcpDriver> {
  return AcpDriver.start(
    {
      command: process.execPath,
      args: [FAKE_ACP_AGENT],
      cwd,
      env: { ...process.env, FAKE_ACP_STATE: cwd },
      clock: systemClock,
      ...(options.resume ? { resume: options.resume } : {}),
    },
    { clock: systemClock, onAgentSessionId: (id) => options.ids?.push(id) },
  );
}

/** A session of agent-bridge (`agent: acp`) running the fake ACP agent in `cwd`, under the structured driver. */
export function startFakeAcpSession(store: Store, cwd: string): Promise<AgentSession> {
  return AgentSession.start({
    spec: getAgent('acp'),
    command: process.execPath,
    args: [FAKE_ACP_AGENT],
    cwd,
    env: { ...process.env, FAKE_ACP_STATE: cwd },
    cols: 120,
    rows: 40,
    autoTrust: true,
    record: true,
    store,
    clock: systemClock,
    structured: {},
  });
}
