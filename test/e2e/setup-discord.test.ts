import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/server.js';
import { cli } from '../support/cli-under-pty.js';

let dir: string;
let env: Record<string, string>;
let fake: FakeDiscord;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-setup-dc-'));
  env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, AGENT_BRIDGE_HOME: path.join(dir, 'data') };
  fake = await startFakeDiscord();
});
afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

const configFile = () => path.join(dir, 'data', 'agent-bridge.yaml');
const USER = '123456789012345678';
const CHANNEL = '223456789012345678';

describe('agent-bridge setup discord', () => {
  it('checks the token with Discord and writes a private config that config check accepts', async () => {
    const args = ['--token', fake.token, '--user', USER, '--channel', CHANNEL, '--api-root', fake.restApi];
    const result = await cli(['setup', 'discord', ...args], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(`Discord bot ${fake.botUser.username} is set up for user ${USER}`),
    );
    expect(fake.calls.some((c) => c.method === 'GET' && c.path === '/users/@me')).toBe(true);
    const text = readFileSync(configFile(), 'utf8');
    expect(text).toContain(`token: ${fake.token}`);
    expect(text).toMatch(new RegExp(`allowed_users:\\s*\\n\\s*- "${USER}"`));
    expect(text).toMatch(new RegExp(`channel_ids:\\s*\\n\\s*- "${CHANNEL}"`));
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    expect((await cli(['config', 'check'], env)).code).toBe(0);
  });

  it.each([
    [['--token', 'nope', '--user', USER], 2, /does not look like a Discord bot token/],
    [
      ['--token', 'a'.repeat(24) + '.abcdef.' + 'b'.repeat(27), '--user', 'me'],
      2,
      /Discord ids are long numbers/,
    ],
    [
      ['--token', 'a'.repeat(24) + '.abcdef.' + 'b'.repeat(27), '--user', USER],
      1,
      /Discord refused that token/,
    ],
  ])('refuses bad input with one line: %j', async (args, code, message) => {
    const result = await cli(['setup', 'discord', ...args, '--api-root', fake.restApi], env);
    expect(result.code).toBe(code);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });
});
