import { REMOTE_CHANNELS } from '../channel-hosting.js';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { AGENT_IDS, driverProblem } from '../../agents/types.js';
import { agents, isAgentId } from '../../agents/registry.js';
import { CONFIG_FILE_NAME, ConfigError, findConfigFile, parseConfig } from '../../config/load.js';
import { expandDir, isRepoChannel, keyLines, REPO_CHANNELS } from '../../config/repos.js';
import type { Config } from '../../config/schema.js';
import { dataDir } from '../../store/paths.js';
import { CliFailure } from '../errors.js';
import { printJson, stdoutTarget, type OutputTarget } from '../output.js';

export interface ConfigCheckOptions {
  config?: string;
  json?: boolean;
}

export interface ConfigWarning {
  line: number;
  key: string;
  message: string;
}

/**
 * `agent-bridge config check`: loads and validates agent-bridge.yaml, then checks what the schema cannot (each
 * repo's folder exists, its agent is known). Returns the exit code: 0 fine, 1 warnings or no file, 2 invalid.
 */
export function configCheckCommand(options: ConfigCheckOptions, target: OutputTarget = stdoutTarget): number {
  const searched = options.config
    ? [path.resolve(options.config)]
    : [path.join(process.cwd(), CONFIG_FILE_NAME), path.join(dataDir(), CONFIG_FILE_NAME)];
  let file: string | null = null;
  let config: Config;
  let text: string;
  try {
    file = findConfigFile(options.config, dataDir());
    if (!file) {
      const error = `no ${CONFIG_FILE_NAME} found; looked at ${searched.join(' and ')}`;
      if (!options.json) throw new CliFailure(error);
      printJson(target, { ok: false, valid: false, file: null, searched, error });
      return 1;
    }
    text = readFileSync(file, 'utf8');
    config = parseConfig(text, file);
  } catch (error) {
    if (!options.json || !(error instanceof ConfigError)) throw error;
    printJson(target, { ok: false, valid: false, file: file ?? searched[0], error: error.message });
    return 2;
  }

  const warnings = checkRepos(config, file, keyLines(text));
  const channels = Object.entries(config.channels)
    .filter(([, settings]) => settings != null)
    .map(([name]) => name);
  if (options.json) {
    printJson(target, {
      ok: warnings.length === 0,
      valid: true,
      file,
      repos: config.repos.map((repo) => ({
        name: repo.name,
        dir: expandDir(repo.dir, path.dirname(file)),
        agent: repo.agent ?? config.defaults.agent,
      })),
      channels,
      warnings,
    });
  } else {
    const count = config.repos.length;
    const summary = `${file}: ${count} ${count === 1 ? 'repo' : 'repos'}, channels: ${channels.join(', ') || 'none'}`;
    // One verdict, last: ok, or how many warnings there are to fix (each on its own line above it).
    const verdict =
      warnings.length === 0
        ? `ok: ${summary}`
        : `${warnings.length} ${warnings.length === 1 ? 'warning' : 'warnings'}: ${summary}`;
    target.write(
      warnings.map((w) => `warning: ${file}:${w.line}: ${w.key}: ${w.message}\n`).join('') + `${verdict}\n`,
    );
  }
  return warnings.length > 0 ? 1 : 0;
}

/** What the schema cannot say: folders that are not there, agents and channels agent-bridge does not know. */
export function checkRepos(
  config: Config,
  file: string,
  lineOf: (key: Array<string | number>) => number,
): ConfigWarning[] {
  const warnings: ConfigWarning[] = [];
  const warn = (key: Array<string | number>, message: string) =>
    warnings.push({ line: lineOf(key), key: key.join('.'), message });
  const seen = new Map<string, number>();
  config.repos.forEach((repo, i) => {
    const first = seen.get(repo.name);
    if (first !== undefined)
      warn(['repos', i, 'name'], `"${repo.name}" is also the name of repos.${first}; names must differ`);
    else seen.set(repo.name, i);

    const dir = expandDir(repo.dir, path.dirname(file));
    if (!existsSync(dir)) warn(['repos', i, 'dir'], `${dir} does not exist`);
    else if (!statSync(dir).isDirectory()) warn(['repos', i, 'dir'], `${dir} is not a folder`);

    const agentKey = repo.agent === undefined ? ['defaults', 'agent'] : ['repos', i, 'agent'];
    const agent = repo.agent ?? config.defaults.agent;
    if (!isAgentId(agent)) {
      if (repo.agent !== undefined || !warnings.some((w) => w.key === 'defaults.agent'))
        warn(agentKey, `unknown agent "${agent}"; choose one of ${AGENT_IDS.join(', ')}`);
    } else {
      const problem = repo.driver ? driverProblem(agents[agent], repo.driver) : null;
      if (problem) warn(['repos', i, 'driver'], problem);
      if (repo.command && !agents[agent].commandFromArgs)
        warn(
          ['repos', i, 'command'],
          `${agent} is found by itself: remove command: (or use agent: acp or custom)`,
        );
      if (agents[agent].commandFromArgs && !repo.command && !repo.args?.length)
        warn(['repos', i, 'command'], `${agent} needs command: (e.g. command: [opencode, acp])`);
    }

    for (const channel of Object.keys(repo.channels ?? {}))
      if (!isRepoChannel(channel))
        warn(
          ['repos', i, 'channels', channel],
          `unknown channel "${channel}"; choose from ${REPO_CHANNELS.join(', ')}`,
        );
      else if (
        REMOTE_CHANNELS.includes(channel as 'telegram') &&
        !(config.channels as Record<string, unknown>)[channel]
      )
        warn(
          ['repos', i, 'channels', channel],
          `channels.${channel} is not configured (run agent-bridge setup ${channel})`,
        );

    (repo.threads ?? []).forEach((thread, t) => {
      const threadDir = thread.dir ? expandDir(thread.dir, path.dirname(file)) : null;
      if (threadDir && !existsSync(threadDir))
        warn(['repos', i, 'threads', t, 'dir'], `${threadDir} does not exist`);
      if (thread.startup && thread.chat === undefined)
        warn(
          ['repos', i, 'threads', t, 'startup'],
          'a thread that starts with serve needs chat: (the chat it is in)',
        );
    });
    const isolated = [
      repo.isolation,
      repo.thread?.isolation,
      ...(repo.threads ?? []).map((t) => t.isolation),
    ];
    if (isolated.includes('worktree') && existsSync(dir) && !existsSync(path.join(dir, '.git')))
      warn(['repos', i, 'dir'], `${dir} is not a git repository, so isolation: worktree cannot work there`);
  });
  return warnings;
}
