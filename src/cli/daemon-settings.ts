import path from 'node:path';
import { currentDiscoveryEnv } from '../agents/discovery.js';
import { discoverCommand } from '../agents/discovery.js';
import { getAgent, isAgentId } from '../agents/registry.js';
import { driverProblem, type AgentSpec } from '../agents/types.js';
import { durationMs } from '../config/duration.js';
import { promptTtls } from '../config/prompt-ttls.js';
import { expandDir } from '../config/repos.js';
import type { Config } from '../config/schema.js';
import { launchSettings } from '../config/thread-settings.js';
import type { DaemonRepo, DaemonSettings } from '../sessions/daemon/daemon.js';
import { LOCAL_CHAT } from '../channels/terminal/terminal-channel.js';
import { UsageError } from './errors.js';

/**
 * The daemon's settings from agent-bridge.yaml. Without repositories (no config at all: the embedded
 * default), the current folder is one, with the default agent if it is installed, else a shell.
 */
export async function daemonSettings(
  config: Config,
  cwd: string,
  withTerminal: boolean,
  baseDir: string = cwd,
): Promise<DaemonSettings> {
  const repos: DaemonRepo[] = [];
  for (const repo of config.repos) {
    const agentId = repo.agent ?? config.defaults.agent;
    if (!isAgentId(agentId)) throw new UsageError(`repository ${repo.name}: unknown agent "${agentId}"`);
    const chats: Record<string, string[]> = {};
    for (const [channel, ids] of Object.entries(repo.channels ?? {})) chats[channel] = ids.map(String);
    if (withTerminal) chats.terminal = [LOCAL_CHAT];
    const agent = getAgent(agentId);
    checkLaunchSettings(repo, agent);
    const driverMistake = repo.driver ? driverProblem(agent, repo.driver) : null;
    if (driverMistake) throw new UsageError(`repository ${repo.name}: ${driverMistake}`);
    if (repo.command && !agent.commandFromArgs)
      throw new UsageError(`repository ${repo.name}: ${agent.id} is found by itself; remove command:`);
    repos.push({
      name: repo.name,
      dir: expandDir(repo.dir, baseDir),
      agent,
      args: [...commandLine(repo.command), ...(repo.args ?? [])],
      ...(repo.driver ? { driver: repo.driver } : {}),
      channels: Object.keys(chats),
      chats,
      config: repo,
      baseDir,
      startup: repo.startup ?? false,
      launch: launchSettings(repo),
    });
  }
  if (repos.length === 0) repos.push(await implicitRepo(config, cwd));
  const limits = config.defaults.rate_limit;
  return {
    repos,
    idleTimeoutMs: durationMs(config.defaults.idle_timeout),
    outputThreshold: config.defaults.output_threshold,
    resume: config.defaults.resume,
    promptTtlMs: promptTtls(config),
    rateLimits: limits.enabled
      ? {
          user: { ratePerSec: limits.user_rate, burst: limits.user_burst },
          channel: { ratePerSec: limits.channel_rate, burst: limits.channel_burst },
        }
      : null,
  };
}

/** `command:` as a list, or one line split at spaces (a list keeps arguments with spaces whole). */
function commandLine(command: string | string[] | undefined): string[] {
  if (command === undefined) return [];
  return typeof command === 'string' ? command.split(/\s+/).filter(Boolean) : command;
}

async function implicitRepo(config: Config, cwd: string): Promise<DaemonRepo> {
  const preferred = isAgentId(config.defaults.agent) ? getAgent(config.defaults.agent) : getAgent('shell');
  const found = await discoverCommand(preferred.search, currentDiscoveryEnv());
  const agent: AgentSpec = found.found ? preferred : getAgent('shell');
  return {
    name: path.basename(cwd) || 'here',
    dir: cwd,
    agent,
    args: [],
    channels: ['terminal'],
    chats: { terminal: [LOCAL_CHAT] },
    baseDir: cwd,
    startup: false,
  };
}

/** A model or permission mode the agent cannot take is a config mistake, said before anything starts. */
function checkLaunchSettings(repo: Config['repos'][number], agent: AgentSpec): void {
  const layers = [repo, repo.thread ?? {}, ...(repo.threads ?? [])];
  if (layers.some((l) => l.model) && !agent.modelFlag)
    throw new UsageError(`repository ${repo.name}: ${agent.id} has no model option; remove model:`);
  const modes = layers
    .map((l) => l.permission)
    .filter((m) => m && m !== 'default' && m !== 'bypassPermissions');
  if (modes.length > 0 && !agent.permissionModeArgs)
    throw new UsageError(
      `repository ${repo.name}: ${agent.id} has no permission mode ${modes[0]}; use default or bypassPermissions`,
    );
  if (layers.some((l) => l.permission === 'bypassPermissions') && !agent.skipPermissionsFlag)
    throw new UsageError(`repository ${repo.name}: ${agent.id} cannot skip permissions`);
}
