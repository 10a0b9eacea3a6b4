import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startFakeSlack, type FakeSlack } from '../fakes/slack/server.js';
import { cli } from '../support/cli-under-pty.js';

let dir: string;
let env: Record<string, string>;
let fake: FakeSlack;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-setup-slack-'));
  env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, AGENT_BRIDGE_HOME: path.join(dir, 'data') };
  fake = await startFakeSlack();
});
afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

const configFile = () => path.join(dir, 'data', 'agent-bridge.yaml');
const USER = 'U0OWNER001';
const CHANNEL = 'C0PROMPTS1';

describe('agent-bridge setup slack', () => {
  it('checks both tokens with Slack, writes a private config that config check accepts, and prints the manifest', async () => {
    const args = ['--token', fake.token, '--app-token', fake.appToken, '--user', USER, '--channel', CHANNEL];
    const result = await cli(['setup', 'slack', ...args, '--api-root', fake.apiRoot], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Slack app agent-bridge (workspace Fake Team) is set up for ${USER}`);
    expect(result.stdout).toContain('--channel slack:<channel id>');
    expect(fake.calls.filter((c) => c.ok).map((c) => c.method)).toEqual([
      'auth.test',
      'apps.connections.open',
    ]);
    const config = parse(readFileSync(configFile(), 'utf8')) as {
      channels: { slack: Record<string, unknown> };
    };
    expect(config.channels.slack).toEqual({
      token: fake.token,
      app_token: fake.appToken,
      allowed_users: [USER],
      channel_ids: [CHANNEL],
      api_root: fake.apiRoot,
    });
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    const manifest = parse(result.stdout.slice(result.stdout.indexOf('display_information:'))) as {
      settings: Record<string, unknown>;
      features: { slash_commands: Array<{ command: string }>; app_home: Record<string, boolean> };
      oauth_config: { scopes: { bot: string[] } };
    };
    expect(manifest.settings).toMatchObject({
      socket_mode_enabled: true,
      interactivity: { is_enabled: true },
    });
    expect(manifest.features.slash_commands[0]!.command).toBe('/agent-bridge');
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
    expect(manifest.oauth_config.scopes.bot).toEqual(
      expect.arrayContaining(['chat:write', 'files:write', 'files:read', 'commands', 'im:write']),
    );
    const check = await cli(['config', 'check', '--json'], env);
    expect(check.code).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ valid: true, channels: ['slack'] });
  });

  it('--manifest prints the manifest alone, checking nothing', async () => {
    const result = await cli(['setup', 'slack', '--manifest'], env);
    expect(result.code).toBe(0);
    expect(parse(result.stdout)).toMatchObject({ settings: { socket_mode_enabled: true } });
    expect(fake.calls).toEqual([]);
  });

  it.each([
    [
      ['--token', 'nope', '--app-token', 'xapp-1-A1-2-abcdef', '--user', USER],
      2,
      /does not look like a Slack bot token/,
    ],
    [
      ['--token', 'xoxb-1-2-abcdefgh', '--app-token', 'xoxb-1-2-abcdefgh', '--user', USER],
      2,
      /does not look like an app-level token/,
    ],
    [
      ['--token', 'xoxb-1-2-abcdefgh', '--app-token', 'xapp-1-A1-2-abcdef', '--user', 'me'],
      2,
      /Slack member ids look like U0123ABCD/,
    ],
    [
      [
        '--token',
        'xoxb-1-2-abcdefgh',
        '--app-token',
        'xapp-1-A1-2-abcdef',
        '--user',
        USER,
        '--channel',
        '#general',
      ],
      2,
      /a Slack channel id looks like C0123ABCD/,
    ],
    [
      ['--token', 'xoxb-1-2-abcdefgh', '--app-token', 'xapp-1-A1-2-abcdef', '--user', USER],
      1,
      /Slack refused the bot token \(invalid_auth\)/,
    ],
  ])('refuses bad input with one line: %j', async (args, code, message) => {
    const result = await cli(['setup', 'slack', ...args, '--api-root', fake.apiRoot], env);
    expect(result.code).toBe(code);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });

  it('a wrong app-level token is refused by name, and nothing is written', async () => {
    const args = ['--token', fake.token, '--app-token', 'xapp-1-A1-2-wrongwrong', '--user', USER];
    const result = await cli(['setup', 'slack', ...args, '--api-root', fake.apiRoot], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Slack refused the app-level token \(invalid_auth\)/);
    expect(() => statSync(configFile())).toThrow();
  });

  it('config check and add-repo: channels.slack is validated, slack:C… ids are checked', async () => {
    writeFileSync(
      path.join(dir, 'agent-bridge.yaml'),
      `channels:\n  slack:\n    token: xoxb-1-2-abc\n    app_token: xapp-1-A1-2-abc\n    allowed_users: [${USER}]\n`,
    );
    const file = path.join(dir, 'agent-bridge.yaml');
    const added = await cli(
      ['add-repo', '--config', file, '--dir', dir, '--name', 'proj', '--channel', 'slack:C0PROJ0001'],
      env,
    );
    expect(added.code, added.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/channels:\n\s+slack: \[C0PROJ0001\]/);
    expect((await cli(['config', 'check', '--config', file], env)).stdout).toMatch(
      /ok: .*1 repo, channels: slack/,
    );
    const bad = await cli(
      ['add-repo', '--config', file, '--dir', dir, '--name', 'x', '--channel', 'slack:general'],
      env,
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/a Slack channel id looks like C0123ABCD/);
    writeFileSync(file, `channels:\n  slack:\n    token: xoxp-user\n    allowed_users: [${USER}]\n`);
    const invalid = await cli(['config', 'check', '--config', file], env);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/agent-bridge\.yaml:3: channels\.slack\.token: the bot token \(xoxb-/);
  });
});
