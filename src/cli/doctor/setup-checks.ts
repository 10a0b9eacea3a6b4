import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { currentDiscoveryEnv } from '../../agents/discovery.js';
import { discoverAll } from '../../agents/registry.js';
import type { AgentSpec } from '../../agents/types.js';
import { ConfigError, loadConfig } from '../../config/load.js';
import { keyLines } from '../../config/repos.js';
import type { Config } from '../../config/schema.js';
import { checkRepos } from '../commands/config.js';
import { discordBotName, slackBotIdentity, telegramBotName } from '../token-checks.js';
import { within, type CheckResult } from './check.js';
import { readFileSync } from 'node:fs';

const run = promisify(execFile);

/** The agents' own version lines; slow starters (aider is Python) get a few seconds. */
const VERSION_TIMEOUT_MS = 8_000;

/**
 * Each agent agent-bridge knows: found (where, which version) or not. A missing agent is a failure only when
 * a configured repository uses it.
 */
export async function agentChecks(config: Config | null): Promise<CheckResult[]> {
  const used = new Set(config?.repos.map((repo) => repo.agent ?? config.defaults.agent) ?? []);
  const found = await discoverAll(currentDiscoveryEnv());
  return Promise.all(
    found
      .filter(({ spec }) => spec.id !== 'custom')
      .map(async ({ spec, discovered }): Promise<CheckResult> => {
        const id = `agent:${spec.id}`;
        if (!discovered.found)
          return {
            id,
            status: used.has(spec.id) ? 'fail' : 'skip',
            detail: `${spec.id} is not installed${used.has(spec.id) ? ', and a repository uses it' : ''}`,
            fix: `install it: ${spec.installHint}`,
          };
        const version = await versionOf(spec, discovered.command);
        return { id, status: 'ok', detail: `${spec.id} ${version} (${discovered.command})` };
      }),
  );
}

async function versionOf(spec: AgentSpec, command: string): Promise<string> {
  const asked = run(command, ['--version'], { timeout: VERSION_TIMEOUT_MS, env: process.env })
    .then(({ stdout, stderr }) => (stdout || stderr).trim().split('\n')[0] ?? '')
    .catch(() => '');
  const line = await within(asked, VERSION_TIMEOUT_MS + 1_000, () => '');
  return versionIn(line) ?? (spec.id === 'shell' ? path.basename(command) : 'version unknown');
}

/**
 * The version number in what `--version` printed: `claude --version` says "2.1.197 (Claude Code)", `copilot
 * --version` "GitHub Copilot CLI 1.0.102." (the sentence's full stop is not the version's).
 */
export function versionIn(line: string): string | null {
  return /\d+\.\d+(?:[\w.-]*\w)?/.exec(line)?.[0] ?? null;
}

/** The config file: found and valid (with the warnings `config check` gives), or absent (the defaults). */
export function configCheck(file: string | null): { result: CheckResult; config: Config | null } {
  if (!file)
    return {
      result: {
        id: 'config',
        status: 'skip',
        detail: 'no agent-bridge.yaml: serve runs this folder from the terminal and the web UI',
        fix: 'agent-bridge setup telegram (or discord), then agent-bridge add-repo',
      },
      config: null,
    };
  let config: Config;
  try {
    config = loadConfig(file).config;
  } catch (error) {
    const detail = error instanceof ConfigError ? error.message : `${file}: ${(error as Error).message}`;
    const result: CheckResult = { id: 'config', status: 'fail', detail, fix: 'agent-bridge config check' };
    return { result, config: null };
  }
  const warnings = checkRepos(config, file, keyLines(readFileSync(file, 'utf8')));
  const count = `${config.repos.length} ${config.repos.length === 1 ? 'repository' : 'repositories'}`;
  if (warnings.length === 0)
    return { result: { id: 'config', status: 'ok', detail: `${file}: ${count}` }, config };
  const first = warnings[0]!;
  return {
    result: {
      id: 'config',
      status: 'warn',
      detail: `${file}:${first.line}: ${first.key}: ${first.message}${warnings.length > 1 ? ` (and ${warnings.length - 1} more)` : ''}`,
      fix: 'agent-bridge config check lists them all',
    },
    config,
  };
}

/** Each configured chat channel's token, asked of its platform (getMe, GET /users/@me, auth.test). */
export async function channelChecks(config: Config | null): Promise<CheckResult[]> {
  const checks: Array<Promise<CheckResult>> = [];
  const telegram = config?.channels.telegram;
  if (telegram)
    checks.push(
      tokenCheck(
        'telegram',
        () => telegramBotName(telegram.token, telegram.api_root),
        (name) => `bot @${name}`,
      ),
    );
  const discord = config?.channels.discord;
  if (discord) {
    const token = discord.token ?? process.env.DISCORD_BOT_TOKEN;
    checks.push(
      token
        ? tokenCheck(
            'discord',
            () => discordBotName(token, discord.api_root),
            (name) => `bot ${name}`,
          )
        : Promise.resolve({
            id: 'channel:discord',
            status: 'fail',
            detail: 'channels.discord has no token and DISCORD_BOT_TOKEN is not set',
            fix: 'agent-bridge setup discord',
          }),
    );
  }
  const slack = config?.channels.slack;
  if (slack) {
    const token = slack.token ?? process.env.SLACK_BOT_TOKEN;
    const appToken = slack.app_token ?? process.env.SLACK_APP_TOKEN;
    checks.push(
      token && appToken
        ? tokenCheck(
            'slack',
            () => slackBotIdentity(token, appToken, slack.api_root).then((me) => `${me.user} of ${me.team}`),
            (name) => `bot ${name}`,
            'accepts its tokens',
          )
        : Promise.resolve({
            id: 'channel:slack',
            status: 'fail',
            detail: `channels.slack has no ${token ? 'app_token' : 'token'} and ${token ? 'SLACK_APP_TOKEN' : 'SLACK_BOT_TOKEN'} is not set`,
            fix: 'agent-bridge setup slack',
          }),
    );
  }
  return Promise.all(checks);
}

async function tokenCheck(
  channel: string,
  ask: () => Promise<string>,
  describe: (name: string) => string,
  verdict = 'accepts its token',
): Promise<CheckResult> {
  try {
    return {
      id: `channel:${channel}`,
      status: 'ok',
      detail: `${channel}: ${describe(await ask())} ${verdict}`,
    };
  } catch (error) {
    return {
      id: `channel:${channel}`,
      status: 'fail',
      detail: `${channel}: ${(error as Error).message}`,
      fix: `agent-bridge setup ${channel}`,
    };
  }
}
