import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { AGENT_IDS, driverProblem } from '../../agents/types.js';
import { agents, isAgentId } from '../../agents/registry.js';
import { NEW_CONFIG_TEXT, writeConfigFile } from '../../config/edit.js';
import { CONFIG_FILE_NAME, findConfigFile, parseConfig } from '../../config/load.js';
import {
  appendRepo,
  defaultRepoName,
  expandDir,
  parseChannelSpecs,
  REPO_NAME,
  keyLines,
  RepoSpecError,
  type RepoEntry,
} from '../../config/repos.js';
import { dataDir } from '../../store/paths.js';
import { UsageError } from '../errors.js';
import { printJson, stdoutTarget, type OutputTarget } from '../output.js';

export interface AddRepoOptions {
  name?: string;
  dir: string;
  channel: string[];
  agent?: string;
  driver?: string;
  config?: string;
  json?: boolean;
  /** Arguments for the agent (after --). */
  args?: string[];
}

/**
 * `agent-bridge add-repo`: appends a repository to `repos:` in agent-bridge.yaml, keeping the file's comments
 * and layout; writes nothing unless the result still validates.
 */
export function addRepoCommand(options: AddRepoOptions, target: OutputTarget = stdoutTarget): void {
  const channels = usage(() => parseChannelSpecs(options.channel));
  const dir = existingDir(options.dir);
  const name = options.name ?? defaultRepoName(dir);
  if (!REPO_NAME.test(name))
    throw new UsageError(`--name ${name}: a repo name is one word of letters, digits, ".", "_" or "-"`);
  const file = configFileToEdit(options.config);
  const created = !existsSync(file);
  const text = created ? NEW_CONFIG_TEXT : readFileSync(file, 'utf8');
  const env = validationEnv(text);
  const config = parseConfig(text, file, env);

  const agent = options.agent ?? config.defaults.agent;
  checkAgent(agent, options.driver, options.args ?? [], options.agent ? '--agent' : 'defaults.agent');
  const clash = config.repos.findIndex((repo) => repo.name === name);
  if (clash >= 0)
    throw new UsageError(
      `a repo named "${name}" is already in ${file}:${keyLines(text)(['repos', clash, 'name'])}; choose another --name`,
    );

  const entry: RepoEntry = { name, dir, agent };
  if (options.driver) entry.driver = options.driver as RepoEntry['driver'];
  if (options.args?.length) entry.args = options.args;
  entry.channels = channels;
  const updated = usage(() => appendRepo(text, entry), file);
  parseConfig(updated, file, env); // never write a file that does not load
  writeConfigFile(file, updated);

  if (options.json) {
    printJson(target, entry);
    return;
  }
  const where = Object.entries(channels)
    .map(([channel, ids]) => `${channel} ${ids.join(', ')}`)
    .join('; ');
  target.write(
    `Added repo "${name}" (${agent} in ${dir}; ${where}) to ${file}${created ? ' (new file, readable only by you)' : ''}.\n` +
      `Check it with: agent-bridge config check${options.config ? ` --config ${file}` : ''}\n`,
  );
}

/** The arguments after `--` only: anything else left over is a mistake (a name without --name). */
export function agentArgs(operands: string[], rawArgs: string[] | undefined): string[] {
  if (!rawArgs) return operands;
  const dashes = rawArgs.indexOf('--');
  const after = dashes < 0 ? 0 : rawArgs.length - dashes - 1;
  if (operands.length > after)
    throw new UsageError(
      `unexpected argument "${operands[0]}": name the repo with --name; arguments for the agent go after --`,
    );
  return operands;
}

function usage<T>(work: () => T, file?: string): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof RepoSpecError)
      throw new UsageError(file ? `${file}: ${error.message}` : error.message);
    throw error;
  }
}

function existingDir(dir: string): string {
  const resolved = expandDir(dir, process.cwd());
  if (!existsSync(resolved)) throw new UsageError(`--dir ${dir}: no such folder (${resolved})`);
  if (!statSync(resolved).isDirectory()) throw new UsageError(`--dir ${dir}: not a folder (${resolved})`);
  return resolved;
}

/** `--config` (created when missing), else the file `loadConfig` would read, else a new one in the data folder. */
function configFileToEdit(explicit: string | undefined): string {
  if (explicit) {
    const file = path.resolve(explicit);
    if (!existsSync(path.dirname(file)))
      throw new UsageError(`--config ${explicit}: no such folder ${path.dirname(file)}`);
    if (existsSync(file) && !statSync(file).isFile())
      throw new UsageError(`--config ${explicit}: not a file`);
    return file;
  }
  return findConfigFile(undefined, dataDir()) ?? path.join(dataDir(), CONFIG_FILE_NAME);
}

function checkAgent(agent: string, driver: string | undefined, args: string[], flag: string): void {
  if (!isAgentId(agent))
    throw new UsageError(`${flag} ${agent}: unknown agent; choose one of ${AGENT_IDS.join(', ')}`);
  const problem = driver === undefined ? null : driverProblem(agents[agent], driver);
  if (problem) throw new UsageError(`--driver ${driver}: ${problem}`);
  if (agents[agent].commandFromArgs && args.length === 0)
    throw new UsageError(
      `${agent} needs its command after --, e.g. -- ${agent === 'acp' ? 'opencode acp' : 'python3 -i'}`,
    );
}

/**
 * The environment the file is validated with: the real one, with `${VAR}`s this shell does not set kept as
 * written. Adding a repo should not need the bot token exported; `config check` says when one is missing.
 */
function validationEnv(text: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const match of text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) env[match[1]!] ??= `\${${match[1]!}}`;
  return env;
}
