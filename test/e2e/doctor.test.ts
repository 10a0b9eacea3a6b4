// `agent-bridge doctor` as a newcomer runs it: real node-pty, SQLite and the hook path, chat tokens checked
// against the fake Telegram and Discord servers, the real Claude Code found and asked its version.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/server.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack/server.js';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram/server.js';
import { claudeBinary } from '../support/claude-env.js';
import { cli } from '../support/cli-under-pty.js';

let dir: string;
let data: string;
let env: Record<string, string>;
let telegram: FakeTelegram;
let discord: FakeDiscord;
let slack: FakeSlack;
let busy: Server | undefined;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-doctor-'));
  data = path.join(dir, 'data');
  mkdirSync(path.join(dir, 'api'), { recursive: true });
  env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    AGENT_BRIDGE_HOME: data,
    AGENT_BRIDGE_CLAUDE_PATH: claudeBinary(),
    DISABLE_AUTOUPDATER: '1',
  };
  [telegram, discord, slack] = await Promise.all([
    startFakeTelegram({ botUsername: 'doc_bot' }),
    startFakeDiscord(),
    startFakeSlack(),
  ]);
});
afterEach(async () => {
  busy?.close();
  busy = undefined;
  await Promise.all([telegram.close(), discord.close(), slack.close()]);
  rmSync(dir, { recursive: true, force: true });
});

interface Check {
  id: string;
  status: 'ok' | 'warn' | 'fail' | 'skip';
  detail: string;
  fix?: string;
}

function writeConfig(options: { telegramToken?: string; agent?: string } = {}): string {
  const file = path.join(dir, 'agent-bridge.yaml');
  writeFileSync(
    file,
    [
      'channels:',
      '  telegram:',
      `    token: ${options.telegramToken ?? telegram.token}`,
      '    allowed_users: [1]',
      `    api_root: ${telegram.apiRoot}`,
      '  discord:',
      `    token: ${discord.token}`,
      "    allowed_users: ['123456789012345678']",
      `    api_root: ${discord.restApi}`,
      '  slack:',
      `    token: ${slack.token}`,
      `    app_token: ${slack.appToken}`,
      "    allowed_users: ['U0OWNER001']",
      `    api_root: ${slack.apiRoot}`,
      'repos:',
      '  - name: api',
      `    dir: ${path.join(dir, 'api')}`,
      `    agent: ${options.agent ?? 'claude'}`,
      '',
    ].join('\n'),
  );
  return file;
}

async function doctor(...args: string[]) {
  const result = await cli(['doctor', '--port', '0', ...args], env);
  const json = await cli(['doctor', '--port', '0', '--json', ...args], env);
  return {
    ...result,
    json: JSON.parse(json.stdout) as { ok: boolean; failed: number; checks: Check[] },
    jsonCode: json.code,
  };
}

const check = (checks: Check[], id: string) => checks.find((c) => c.id === id);

describe('agent-bridge doctor', () => {
  it('checks everything a set-up machine needs, one line each, and says all is well (exit 0)', async () => {
    const config = writeConfig();
    const result = await doctor('--config', config);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^✓ Node\.js \d+\.\d+\.\d+ \(agent-bridge needs /m);
    expect(result.stdout).toMatch(/^✓ node-pty runs programs in a terminal/m);
    expect(result.stdout).toContain(`✓ SQLite opens ${path.join(data, 'agent-bridge.db')} in WAL mode`);
    expect(result.stdout).toMatch(/^✓ claude \d+\.\d+\.\d+ \(/m);
    expect(result.stdout).toContain(`✓ ${config}: 1 repository`);
    expect(result.stdout).toContain('✓ telegram: bot @doc_bot accepts its token');
    expect(result.stdout).toContain(`✓ discord: bot ${discord.botUser.username} accepts its token`);
    expect(result.stdout).toMatch(/^✓ slack: bot .+ of .+ accepts its tokens$/m);
    expect(result.stdout).toMatch(/^✓ Claude Code's hooks reach a session's host on its socket$/m);
    expect(result.stdout).toMatch(/Everything agent-bridge needs works here\.\n$/);
    expect(telegram.calls.some((c) => c.method === 'getMe')).toBe(true);
    expect(discord.calls.some((c) => c.path === '/users/@me')).toBe(true);

    expect(result.jsonCode).toBe(0);
    expect(result.json.ok).toBe(true);
    expect(result.json.checks.map((c) => c.id)).toEqual(
      expect.arrayContaining([
        'node',
        'pty',
        'store',
        'data-folder',
        'disk',
        'agent:claude',
        'config',
        'channel:telegram',
        'channel:discord',
        'channel:slack',
        'web-port',
        'hooks',
      ]),
    );
  });

  it('fails (exit 1) on a refused token, a missing agent a repository uses, and a folder others can read, each with its fix', async () => {
    const config = writeConfig({
      telegramToken: '999:refused-refused-refused-refused-refused',
      agent: 'aider',
    });
    mkdirSync(data, { recursive: true });
    chmodSync(data, 0o755);
    const result = await doctor('--config', config);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✗ telegram: Telegram refused that token (401 Unauthorized)');
    expect(result.stdout).toContain('    → agent-bridge setup telegram');
    expect(result.stdout).toContain('✗ aider is not installed, and a repository uses it');
    expect(result.stdout).toContain(`✗ readable by others: ${data} (755)`);
    expect(result.stdout).toContain(`    → chmod -R go-rwx ${data}`);
    expect(result.stdout).toMatch(/\n3 failed: see the → lines above\.\n$/);
    expect(result.jsonCode).toBe(1);
    expect(result.json).toMatchObject({ ok: false, failed: 3 });
    expect(check(result.json.checks, 'agent:aider')).toMatchObject({ status: 'fail' });
    expect(check(result.json.checks, 'channel:discord')).toMatchObject({ status: 'ok' });
  });

  it('warns, without failing, when the web port is taken; an invalid config is one line with its line number', async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy!.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    const file = path.join(dir, 'bad.yaml');
    writeFileSync(file, 'repos:\n  - name: a\n    dirr: /tmp\n');
    const result = await cli(['doctor', '--port', String(port), '--config', file], env);
    expect(result.stdout).toContain(`! 127.0.0.1:${port} is in use`);
    expect(result.stdout).toContain(`✗ ${file}:3: repos.0: unknown key "dirr"`);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/1 failed, 1 warning/);
  });

  it('refuses a port that cannot be one (exit 2)', async () => {
    const result = await cli(['doctor', '--port', '99999'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/port number from 0 to 65535/);
  });
});
