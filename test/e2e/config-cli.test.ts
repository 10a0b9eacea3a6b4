import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { CLI } from '../support/cli-under-pty.js';

const execFileAsync = promisify(execFile);

let dir: string;
let work: string;
let data: string;
let env: Record<string, string>;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'ab-config-cli-')));
  work = path.join(dir, 'work');
  data = path.join(dir, 'data');
  for (const d of [work, path.join(dir, 'src', 'api'), path.join(dir, 'src', 'web')])
    mkdirSync(d, { recursive: true });
  env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, AGENT_BRIDGE_HOME: data };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The real CLI (`npm run build` first), run from a temporary working folder. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [CLI, ...args], { env, cwd: work });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const dataFile = () => path.join(data, 'agent-bridge.yaml');
const workFile = () => path.join(work, 'agent-bridge.yaml');

const COMMENTED = `# shared settings
channels:
  telegram:
    token: \${TELEGRAM_BOT_TOKEN} # from @BotFather
    allowed_users: [123456789] # who may answer

# the repositories
repos:
  # already here
  - name: old
    dir: /tmp # scratch
`;

describe('agent-bridge add-repo', () => {
  it('appends two repos to ./agent-bridge.yaml, keeping its comments; the file still loads', async () => {
    writeFileSync(workFile(), COMMENTED);
    const first = await cli(['add-repo', '--dir', '../src/api', '--channel', 'telegram:123456789']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      `Added repo "api" (claude in ${path.join(dir, 'src', 'api')}; telegram 123456789) to ${workFile()}.`,
    );
    const second = await cli([
      'add-repo',
      '--name',
      'site',
      '--dir',
      '~/src/web',
      '--agent',
      'codex',
      '--driver',
      'structured',
      '--channel',
      'telegram:123456789',
      '--channel',
      'discord:1122334455',
      '--json',
      '--',
      '--model',
      'o3',
    ]);
    expect(second.code).toBe(0);
    const site = {
      name: 'site',
      dir: path.join(dir, 'src', 'web'),
      agent: 'codex',
      driver: 'structured',
      args: ['--model', 'o3'],
      channels: { telegram: [123456789], discord: [1122334455] },
    };
    expect(JSON.parse(second.stdout)).toEqual(site);

    const text = readFileSync(workFile(), 'utf8');
    expect(text.startsWith(COMMENTED)).toBe(true);
    expect(text).toContain('      telegram: [123456789]\n');
    const config = parseConfig(text, workFile(), { TELEGRAM_BOT_TOKEN: '1:abc' });
    expect(config.repos).toEqual([
      { name: 'old', dir: '/tmp' },
      {
        name: 'api',
        dir: path.join(dir, 'src', 'api'),
        agent: 'claude',
        channels: { telegram: [123456789] },
      },
      site,
    ]);
    expect(statSync(workFile()).mode & 0o777).toBe(0o600);
  });

  it('creates the data folder file, readable only by you, when there is none', async () => {
    const result = await cli(['add-repo', '--dir', '../src/api', '--channel', 'discord:1122334455']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`to ${dataFile()} (new file, readable only by you).`);
    expect(statSync(dataFile()).mode & 0o777).toBe(0o600);
    expect(parseConfig(readFileSync(dataFile(), 'utf8'), dataFile()).repos).toEqual([
      {
        name: 'api',
        dir: path.join(dir, 'src', 'api'),
        agent: 'claude',
        channels: { discord: [1122334455] },
      },
    ]);
  });

  it.each([
    [
      'a name already taken',
      ['--name', 'old', '--dir', '../src/api', '--channel', 'telegram:1'],
      () => `a repo named "old" is already in ${workFile()}:10; choose another --name`,
    ],
    [
      'a folder that does not exist',
      ['--dir', '../src/nope', '--channel', 'telegram:1'],
      () => `--dir ../src/nope: no such folder (${path.join(dir, 'src', 'nope')})`,
    ],
    [
      'an unknown agent',
      ['--dir', '../src/api', '--agent', 'gpt', '--channel', 'telegram:1'],
      () =>
        '--agent gpt: unknown agent; choose one of claude, codex, gemini, copilot, cursor-agent, aider, shell, custom, acp',
    ],
    [
      'an unknown channel',
      ['--dir', '../src/api', '--channel', 'pigeon:1'],
      () =>
        '--channel pigeon:1: unknown channel "pigeon"; choose from terminal, telegram, discord, slack, web',
    ],
    [
      'a channel without an id',
      ['--dir', '../src/api', '--channel', 'telegram'],
      () => '--channel telegram: expected <channel>:<id>, e.g. telegram:123456789',
    ],
    [
      'a driver the agent does not have',
      ['--dir', '../src/api', '--agent', 'shell', '--driver', 'structured', '--channel', 'web:1'],
      () =>
        '--driver structured: shell has no structured driver (it is read from its screen): use driver terminal or auto',
    ],
    [
      'a stray word before --',
      ['api', '--dir', '../src/api', '--channel', 'web:1'],
      () => 'unexpected argument "api": name the repo with --name; arguments for the agent go after --',
    ],
  ])('refuses %s (exit 2) and leaves the file as it was', async (_, args, message) => {
    writeFileSync(workFile(), COMMENTED);
    const result = await cli(['add-repo', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`agent-bridge: ${message()}\n`);
    expect(readFileSync(workFile(), 'utf8')).toBe(COMMENTED);
  });

  it('writes nothing into a file that does not validate', async () => {
    const broken = 'channels:\n  telegram:\n    tokn: abc\n';
    writeFileSync(workFile(), broken);
    const result = await cli(['add-repo', '--dir', '../src/api', '--channel', 'web:1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `agent-bridge: ${workFile()}:3: channels.telegram: unknown key "tokn" (the keys here: token, allowed_users, chat_ids, api_root)\n`,
    );
    expect(readFileSync(workFile(), 'utf8')).toBe(broken);
  });

  it('--channel is required', async () => {
    const result = await cli(['add-repo', '--dir', '../src/api']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/required option '--channel <channel:id>' not specified/);
  });
});

describe('agent-bridge config check', () => {
  it('says ok with the file, its repos and channels', async () => {
    mkdirSync(data, { recursive: true });
    writeFileSync(
      dataFile(),
      `channels:\n  telegram:\n    token: abc\n    allowed_users: [1]\nrepos:\n` +
        `  - name: api\n    dir: ~/src/api\n    channels: { telegram: [1] }\n` +
        `  - name: web\n    dir: ${path.join(dir, 'src', 'web')}\n    agent: codex\n`,
    );
    const result = await cli(['config', 'check']);
    expect(result).toEqual({
      code: 0,
      stdout: `ok: ${dataFile()}: 2 repos, channels: telegram\n`,
      stderr: '',
    });
    const json = await cli(['config', 'check', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      ok: true,
      valid: true,
      file: dataFile(),
      repos: [
        { name: 'api', dir: path.join(dir, 'src', 'api'), agent: 'claude' },
        { name: 'web', dir: path.join(dir, 'src', 'web'), agent: 'codex' },
      ],
      channels: ['telegram'],
      warnings: [],
    });
  });

  it('checks what add-repo wrote', async () => {
    expect((await cli(['add-repo', '--dir', '../src/api', '--channel', 'telegram:1'])).code).toBe(0);
    const result = await cli(['config', 'check']);
    // The repository talks to Telegram, which is not set up yet: said, with the line to look at.
    expect(result.stdout).toBe(
      `warning: ${dataFile()}:8: repos.0.channels.telegram: channels.telegram is not configured (run agent-bridge setup telegram)\n` +
        `1 warning: ${dataFile()}: 1 repo, channels: none\n`,
    );
    expect(result.code).toBe(1);
  });

  it('reports an invalid file as one line with its line and key (exit 2)', async () => {
    writeFileSync(workFile(), 'repos:\n  - name: a\n    dir: /tmp\n    agnet: claude\n');
    const result = await cli(['config', 'check']);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `agent-bridge: ${workFile()}:4: repos.0: unknown key "agnet" (the keys here: name, dir, agent, driver, command, args, channels, model, permission, isolation, startup, thread, threads)\n`,
    });
    const json = await cli(['config', 'check', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({
      ok: false,
      valid: false,
      file: workFile(),
      error: `${workFile()}:4: repos.0: unknown key "agnet" (the keys here: name, dir, agent, driver, command, args, channels, model, permission, isolation, startup, thread, threads)`,
    });
  });

  it('warns about missing folders and unknown agents (exit 1)', async () => {
    writeFileSync(
      workFile(),
      'repos:\n  - name: a\n    dir: ../nope\n  - name: b\n    dir: ../src/api\n    agent: gpt\n' +
        '    channels:\n      pigeon: [1]\n',
    );
    const result = await cli(['config', 'check']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      `warning: ${workFile()}:3: repos.0.dir: ${path.join(dir, 'nope')} does not exist\n` +
        `warning: ${workFile()}:6: repos.1.agent: unknown agent "gpt"; choose one of claude, codex, gemini, copilot, cursor-agent, aider, shell, custom, acp\n` +
        `warning: ${workFile()}:8: repos.1.channels.pigeon: unknown channel "pigeon"; choose from terminal, telegram, discord, slack, web\n` +
        `3 warnings: ${workFile()}: 2 repos, channels: none\n`,
    );
  });

  it('warns about thread entries that cannot work: a missing folder, startup without its chat, worktrees outside git', async () => {
    writeFileSync(
      workFile(),
      'repos:\n  - name: a\n    dir: ../src/api\n    thread: { isolation: worktree }\n    threads:\n' +
        '      - id: 1\n        dir: ../gone\n      - id: 2\n        startup: true\n',
    );
    const result = await cli(['config', 'check']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      `warning: ${workFile()}:7: repos.0.threads.0.dir: ${path.join(dir, 'gone')} does not exist\n` +
        `warning: ${workFile()}:9: repos.0.threads.1.startup: a thread that starts with serve needs chat: (the chat it is in)\n` +
        `warning: ${workFile()}:3: repos.0.dir: ${path.join(dir, 'src', 'api')} is not a git repository, so isolation: worktree cannot work there\n` +
        `3 warnings: ${workFile()}: 1 repo, channels: none\n`,
    );
  });

  it('accepts the commented example in examples/ as it stands', async () => {
    for (const repo of ['api', 'web']) execFileSync('git', ['init', '-q', path.join(dir, 'src', repo)]);
    env = {
      ...env,
      TELEGRAM_BOT_TOKEN: '123456:offline-example',
      DISCORD_BOT_TOKEN: 'offline.example.token',
    };
    const example = fileURLToPath(new URL('../../examples/agent-bridge.yaml', import.meta.url));
    const result = await cli(['config', 'check', '--config', example]);
    expect(result).toEqual({
      code: 0,
      stdout: `ok: ${example}: 2 repos, channels: telegram, discord\n`,
      stderr: '',
    });
  });

  it('says where it looked when there is no file (exit 1)', async () => {
    const result = await cli(['config', 'check']);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `agent-bridge: no agent-bridge.yaml found; looked at ${workFile()} and ${dataFile()}\n`,
    });
    const missing = await cli(['config', 'check', '--config', 'other.yaml']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('agent-bridge: other.yaml: no such config file\n');
  });
});
