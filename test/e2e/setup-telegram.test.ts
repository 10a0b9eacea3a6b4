import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram/server.js';
import { cli } from '../support/cli-under-pty.js';

let dir: string;
let env: Record<string, string>;
let fake: FakeTelegram;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-setup-'));
  env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, AGENT_BRIDGE_HOME: path.join(dir, 'data') };
  fake = await startFakeTelegram({ botUsername: 'my_agents_bot' });
});
afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

const configFile = () => path.join(dir, 'data', 'agent-bridge.yaml');

describe('agent-bridge setup telegram', () => {
  it('checks the token with getMe and writes a private config', async () => {
    const result = await cli(
      ['setup', 'telegram', '--token', fake.token, '--user', '4242', '--api-root', fake.apiRoot],
      env,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/@my_agents_bot is set up for user 4242/);
    expect(fake.calls.some((c) => c.method === 'getMe')).toBe(true);
    const text = readFileSync(configFile(), 'utf8');
    expect(text).toContain(`token: ${fake.token}`);
    expect(text).toMatch(/allowed_users:\s*\n?\s*- 4242|allowed_users: \[ 4242 \]/);
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
  });

  it('keeps what the file already said, comments included', async () => {
    mkdirSync(path.join(dir, 'data'), { recursive: true });
    writeFileSync(configFile(), '# mine\ndefaults:\n  output_threshold: 900 # smaller\n');
    expect(
      (
        await cli(
          ['setup', 'telegram', '--token', fake.token, '--user', '1', '--api-root', fake.apiRoot],
          env,
        )
      ).code,
    ).toBe(0);
    const text = readFileSync(configFile(), 'utf8');
    expect(text).toContain('# mine');
    expect(text).toContain('output_threshold: 900 # smaller');
  });

  it.each([
    [['--token', 'not-a-token', '--user', '1'], 2, /not a whole bot token: .* like 110201543:AAH/],
    // Digits, a colon, then letters, but far too short: the message must not describe it as right.
    [['--token', '123:abc', '--user', '1'], 2, /not a whole bot token: .*35 letters and digits/],
    [['--token', '123:abcdefghijklmnopqrstuvwxyz0123456789', '--user', 'me'], 2, /user ids are numbers/],
    [['--token', '123:abcdefghijklmnopqrstuvwxyz0123456789'], 2, /missing your telegram user id/i],
  ])('refuses bad input with one line: %j', async (args, code, message) => {
    const result = await cli(['setup', 'telegram', ...args, '--api-root', fake.apiRoot], env);
    expect(result.code).toBe(code);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });

  it('says when Telegram refuses the token', async () => {
    const result = await cli(
      [
        'setup',
        'telegram',
        '--token',
        '999:wrong-token-wrong-token-wrong-token',
        '--user',
        '1',
        '--api-root',
        fake.apiRoot,
      ],
      env,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/refused that token/);
  });
});

describe('channels that are not set up', () => {
  it('run --approve-from telegram without a config says how to set it up', async () => {
    const result = await cli(['run', 'shell', '--approve-from', 'telegram'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/telegram is not configured.*agent-bridge setup telegram/);
  });

  it('an unknown channel is bad usage', async () => {
    const result = await cli(['run', 'shell', '--approve-from', 'pigeon'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown channel; choose from terminal, cli, telegram/);
  });

  it('a broken config file names its line', async () => {
    mkdirSync(path.join(dir, 'data'), { recursive: true });
    writeFileSync(
      configFile(),
      'channels:\n  telegram:\n    token: abc\n    allowed_users: [1]\n    colour: blue\n',
    );
    const result = await cli(['run', 'shell', '--approve-from', 'telegram'], env);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      `agent-bridge: ${configFile()}:5: channels.telegram: unknown key "colour" (the keys here: token, allowed_users, chat_ids, api_root)`,
    );
  });

  it('serve without the web UI, channels or a terminal says there is nothing to serve', async () => {
    const result = await cli(['serve', '--no-web'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/nothing to serve: no channels configured .*serve --terminal/);
  });
});
