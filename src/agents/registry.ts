import { aider } from './aider/spec.js';
import { claude } from './claude/spec.js';
import { codex } from './codex/spec.js';
import { copilot } from './copilot/spec.js';
import { cursorAgent } from './cursor-agent/spec.js';
import { custom } from './custom/spec.js';
import { gemini } from './gemini/spec.js';
import { shell } from './shell/spec.js';
import { AGENT_IDS, buildLaunchArgs, type AgentId, type AgentSpec, type LaunchOptions } from './types.js';
import { discoverCommand, type Discovered, type DiscoveryEnv } from './discovery.js';

/** Every agent agent-bridge knows. A Record, so an agent missing a facet fails to compile. */
export const agents: Record<AgentId, AgentSpec> = {
  claude,
  codex,
  gemini,
  copilot,
  'cursor-agent': cursorAgent,
  aider,
  shell,
  custom,
};

export class UnknownAgentError extends Error {
  override name = 'UnknownAgentError';
  constructor(readonly requested: string) {
    super(`unknown agent "${requested}": choose one of ${AGENT_IDS.join(', ')}`);
  }
}

export function isAgentId(value: string): value is AgentId {
  return (AGENT_IDS as readonly string[]).includes(value);
}

export function getAgent(id: string): AgentSpec {
  if (!isAgentId(id)) throw new UnknownAgentError(id);
  return agents[id];
}

export interface ResolvedLaunch {
  spec: AgentSpec;
  discovered: Discovered;
  command: string;
  args: string[];
}

/** Finds the agent's executable and builds its arguments. `custom` takes its command from the extra args. */
export async function resolveLaunch(
  spec: AgentSpec,
  options: LaunchOptions,
  denv: DiscoveryEnv,
): Promise<ResolvedLaunch> {
  if (spec.id === 'custom') return resolveCustom(spec, options, denv);
  const discovered = await discoverCommand(spec.search, denv);
  return { spec, discovered, command: discovered.command, args: buildLaunchArgs(spec, options) };
}

async function resolveCustom(
  spec: AgentSpec,
  options: LaunchOptions,
  denv: DiscoveryEnv,
): Promise<ResolvedLaunch> {
  const [program, ...rest] = options.extraArgs ?? [];
  if (!program) throw new MissingCustomCommandError();
  const search = program.includes('/')
    ? { homePaths: [program], names: [] }
    : { homePaths: [], names: [program] };
  const discovered = await discoverCommand(search, { ...denv, projectBin: null });
  const found = discovered.found ? discovered : { ...discovered, command: program };
  return {
    spec,
    discovered: found,
    command: found.command,
    args: buildLaunchArgs(spec, { ...options, extraArgs: rest }),
  };
}

export class MissingCustomCommandError extends Error {
  override name = 'MissingCustomCommandError';
  constructor() {
    super('custom needs a command after --, e.g. agent-bridge run custom -- python3 -i');
  }
}

export async function discoverAll(
  denv: DiscoveryEnv,
): Promise<Array<{ spec: AgentSpec; discovered: Discovered }>> {
  const listed = Object.values(agents).filter((spec) => spec.id !== 'custom');
  return Promise.all(
    listed.map(async (spec) => ({ spec, discovered: await discoverCommand(spec.search, denv) })),
  );
}
