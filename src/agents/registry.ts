import { acp } from './acp/spec.js';
import { aider } from './aider/spec.js';
import { claude } from './claude/spec.js';
import { codex } from './codex/spec.js';
import { copilot } from './copilot/spec.js';
import { cursorAgent } from './cursor-agent/spec.js';
import { custom } from './custom/spec.js';
import { gemini } from './gemini/spec.js';
import { shell } from './shell/spec.js';
import {
  AGENT_IDS,
  buildLaunchArgs,
  buildStructuredArgs,
  type AgentId,
  type AgentSpec,
  type DriverKind,
  type LaunchOptions,
} from './types.js';
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
  acp,
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

/**
 * Finds the agent's executable and builds its arguments, for the terminal driver or (`driver: 'structured'`)
 * for its protocol mode. `custom` and `acp` take their command from the extra args.
 */
export async function resolveLaunch(
  spec: AgentSpec,
  options: LaunchOptions,
  denv: DiscoveryEnv,
  driver: DriverKind = 'terminal',
): Promise<ResolvedLaunch> {
  const build = driver === 'structured' ? buildStructuredArgs : buildLaunchArgs;
  if (spec.commandFromArgs) return resolveFromArgs(spec, options, denv, build);
  const discovered = await discoverCommand(spec.search, denv);
  return { spec, discovered, command: discovered.command, args: build(spec, options) };
}

async function resolveFromArgs(
  spec: AgentSpec,
  options: LaunchOptions,
  denv: DiscoveryEnv,
  build: typeof buildLaunchArgs,
): Promise<ResolvedLaunch> {
  const [program, ...rest] = options.extraArgs ?? [];
  if (!program) throw new MissingCustomCommandError(spec.id);
  const search = program.includes('/')
    ? { homePaths: [program], names: [] }
    : { homePaths: [], names: [program] };
  const discovered = await discoverCommand(search, { ...denv, projectBin: null });
  const found = discovered.found ? discovered : { ...discovered, command: program };
  return {
    spec,
    discovered: found,
    command: found.command,
    args: build(spec, { ...options, extraArgs: rest }),
  };
}

export class MissingCustomCommandError extends Error {
  override name = 'MissingCustomCommandError';
  constructor(agent = 'custom') {
    super(
      agent === 'acp'
        ? 'acp needs the agent command after --, e.g. agent-bridge run acp -- opencode acp'
        : `${agent} needs a command after --, e.g. agent-bridge run ${agent} -- python3 -i`,
    );
  }
}

export async function discoverAll(
  denv: DiscoveryEnv,
): Promise<Array<{ spec: AgentSpec; discovered: Discovered }>> {
  const listed = Object.values(agents).filter((spec) => !spec.commandFromArgs);
  return Promise.all(
    listed.map(async (spec) => ({ spec, discovered: await discoverCommand(spec.search, denv) })),
  );
}
