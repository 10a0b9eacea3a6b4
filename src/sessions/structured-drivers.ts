import type { AgentSpec, StructuredProtocol } from '../agents/types.js';
import type { AgentDriver } from '../drivers/driver.js';
import { AcpDriver } from '../drivers/structured/acp/acp-driver.js';
import { ClaudeStreamDriver } from '../drivers/structured/claude/claude-stream-driver.js';
import { CodexAppServerDriver } from '../drivers/structured/codex/app-server-driver.js';
import type { StructuredDriverOptions, StructuredLaunch } from '../drivers/structured/structured-driver.js';

type StartDriver = (launch: StructuredLaunch, options: StructuredDriverOptions) => Promise<AgentDriver>;

/** One structured driver per protocol: a Record, so a protocol without a driver fails to compile. */
const DRIVERS: Record<StructuredProtocol, StartDriver> = {
  acp: (launch, options) => AcpDriver.start(launch, options),
  'claude-stream-json': (launch, options) => ClaudeStreamDriver.start(launch, options),
  'codex-app-server': (launch, options) => CodexAppServerDriver.start(launch, options),
};

/** Starts the agent under the structured driver of the protocol it speaks. */
export function startStructuredDriver(
  spec: AgentSpec,
  launch: StructuredLaunch,
  options: StructuredDriverOptions,
): Promise<AgentDriver> {
  if (!spec.structured) throw new Error(`${spec.displayName} has no structured driver`);
  return DRIVERS[spec.structured.protocol](launch, options);
}
