// `agent-bridge debug bundle`: what a bug report carries, and that no secret planted in the config, the
// environment or an agent's output is in it.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli, CliUnderPty } from '../support/cli-under-pty.js';
import { waitFor } from '../support/wait.js';

/** Secrets no generic rule recognises: only knowing where they came from can hide them. */
const ENV_SECRET = 'plain-words-service-credential-4711';
const CONFIG_SECRET = 'discord-secret-without-any-known-shape';
const TELEGRAM_SECRET = '123456789:AAH-planted-telegram-secret-0123456789';
const KEY_IN_OUTPUT = 'sk-ant-api03-plantedInAgentOutput0123456789abcdefABCDEF';

let dir: string;
let data: string;
let env: Record<string, string>;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-bundle-'));
  data = path.join(dir, 'data');
  mkdirSync(path.join(data, 'logs'), { recursive: true, mode: 0o700 });
  env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    AGENT_BRIDGE_HOME: data,
    MY_SERVICE_TOKEN: ENV_SECRET,
    ANTHROPIC_API_KEY: KEY_IN_OUTPUT,
    TELEGRAM_BOT_TOKEN: TELEGRAM_SECRET,
  };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function promptWithSecretsOnScreen(): Promise<void> {
  // An agent that shows secrets in its own output and then asks: the prompt's excerpt reaches the audit log.
  const script = `printf 'deploying with %s and %s\\n' "$MY_SERVICE_TOKEN" "$ANTHROPIC_API_KEY"; printf 'Go ahead? (y/n) '; read answer`;
  const agent = new CliUnderPty(['run', '--no-record', 'custom', '--', 'sh', '-c', script], {
    cwd: dir,
    env,
  });
  try {
    await agent.waitForText('Go ahead? (y/n)');
    await waitFor('the prompt in the audit log', () => {
      const log = path.join(data, 'audit.log');
      try {
        return readFileSync(log, 'utf8').includes('PROMPT_DETECTED');
      } catch {
        return false;
      }
    });
  } finally {
    await agent.stop();
  }
}

function extract(file: string): Map<string, string> {
  const out = path.join(dir, 'extracted');
  mkdirSync(out);
  tar.extract({ file, cwd: out, sync: true });
  const folder = path.join(out, 'agent-bridge-debug');
  return new Map(readdirSync(folder).map((name) => [name, readFileSync(path.join(folder, name), 'utf8')]));
}

describe('agent-bridge debug bundle', () => {
  it('holds versions, doctor, the config, the environment, the database shape and recent logs, with every secret hidden', async () => {
    writeFileSync(
      path.join(data, 'agent-bridge.yaml'),
      [
        'channels:',
        '  telegram:',
        '    token: ${TELEGRAM_BOT_TOKEN} # from the environment',
        '    allowed_users: [1]',
        '  discord:',
        `    token: ${CONFIG_SECRET}`,
        "    allowed_users: ['123456789012345678']",
        '',
      ].join('\n'),
    );
    await promptWithSecretsOnScreen();
    // A chat library's error as serve logged it before redaction existed: a token inside a URL.
    writeFileSync(
      path.join(data, 'logs', 'serve.log'),
      JSON.stringify({
        msg: `getUpdates failed: https://api.telegram.org/bot${TELEGRAM_SECRET}/getUpdates`,
      }) + '\n',
    );

    const file = path.join(dir, 'report.tar.gz');
    const result = await cli(['debug', 'bundle', '-o', file], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`wrote ${file}`);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const parts = extract(file);
    expect([...parts.keys()].sort()).toEqual([
      'audit-tail.jsonl',
      'config.yaml',
      'database.txt',
      'doctor.json',
      'environment.txt',
      'serve-log-tail.jsonl',
      'versions.json',
    ]);
    const everything = [...parts.values()].join('\n');
    for (const secret of [ENV_SECRET, CONFIG_SECRET, TELEGRAM_SECRET, KEY_IN_OUTPUT]) {
      expect(everything).not.toContain(secret);
      // Not even most of one.
      expect(everything).not.toContain(secret.slice(0, 20));
    }
    // What is there is useful: the prompt happened, the config's shape and the variable it names are kept.
    expect(parts.get('audit-tail.jsonl')).toContain('PROMPT_DETECTED');
    expect(parts.get('audit-tail.jsonl')).toContain('deploying with');
    expect(parts.get('config.yaml')).toMatch(
      /token: (\$\{TELEGRAM_BOT_TOKEN\}|\[redacted\]) # from the environment/,
    );
    expect(parts.get('config.yaml')).toContain('token: "[redacted]"');
    expect(parts.get('environment.txt')).toContain('MY_SERVICE_TOKEN is set (hidden)');
    expect(parts.get('environment.txt')).toContain(`AGENT_BRIDGE_HOME=${data}`);
    expect(parts.get('serve-log-tail.jsonl')).toContain('getUpdates failed');
    expect(parts.get('database.txt')).toMatch(/^-- prompts: 1 rows$/m);
    expect(JSON.parse(parts.get('versions.json')!)).toMatchObject({ node: process.versions.node });
    expect(JSON.parse(parts.get('doctor.json')!)).toHaveProperty('checks');
  });

  it('never overwrites a file (exit 1)', async () => {
    const file = path.join(dir, 'taken.tar.gz');
    writeFileSync(file, 'mine');
    const result = await cli(['debug', 'bundle', '-o', file], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`agent-bridge: ${file} exists already: choose another with -o\n`);
    expect(readFileSync(file, 'utf8')).toBe('mine');
  });
});
