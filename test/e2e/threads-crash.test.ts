import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/server.js';
import { cliJson, CliUnderPty } from '../support/cli-under-pty.js';
import { CHANNEL, OWNER, writeDiscordConfig } from '../support/discord-setup.js';
import { git, makeRepo } from '../support/git-repo.js';
import { endSessionHosts } from '../support/session-hosts.js';
import { processExists, waitFor } from '../support/wait.js';

const AGENT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fakes/agent/chatty-agent.sh');

let dir: string;
let configFile: string;
let repo: string;
let discord: FakeDiscord;
let env: Record<string, string>;
const started: CliUnderPty[] = [];

beforeEach(async () => {
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'ab-threads-crash-')));
  repo = makeRepo(path.join(dir, 'repo'));
  discord = await startFakeDiscord({ channels: [{ id: CHANNEL, name: 'proj' }] });
  const data = path.join(dir, 'data');
  env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, AGENT_BRIDGE_HOME: data };
  configFile = writeDiscordConfig(data, discord, repo, [
    '    agent: custom',
    `    args: [bash, ${AGENT}, proj]`,
    '    thread: { isolation: worktree }',
  ]);
});

afterEach(async () => {
  await Promise.all(started.splice(0).map((p) => p.stop()));
  await endSessionHosts(env.AGENT_BRIDGE_HOME!);
  await discord.close();
  rmSync(dir, { recursive: true, force: true });
});

async function serve(): Promise<CliUnderPty> {
  const proc = new CliUnderPty(['serve', '--no-web', '--config', configFile], {
    cwd: dir,
    env,
  });
  started.push(proc);
  await proc.waitForText('agent-bridge serve: proj on discord');
  return proc;
}

const worktreeOf = (thread: string) => path.join(repo, '.agent-bridge', 'worktrees', `thread-${thread}`);
const inThread = (thread: string, pattern: RegExp) =>
  discord.waitForMessage((m) => m.fromBot && m.channelId === thread && pattern.test(m.content), 20_000);

describe('threads and worktrees across a crash of agent-bridge serve', () => {
  it('after kill -9 and a new start, the thread session is taken back still running, in the same worktree; orphans are reported', async () => {
    const first = await serve();
    const thread = discord.createThread({ parentId: CHANNEL, name: 'task' });
    discord.userSends({ userId: OWNER, channelId: thread, content: 'PWD' });
    await inThread(thread, new RegExp(`proj in ${worktreeOf(thread)}`));
    const firstReady = (await inThread(thread, /proj ready/)).id;
    // A worktree nobody knows about, made by hand in agent-bridge's folder.
    git(repo, 'worktree', 'add', '-q', '-b', 'stray', path.join(repo, '.agent-bridge', 'worktrees', 'stray'));
    const running = await cliJson<Array<{ id: string; label: string; pid: number }>>(['status'], env);
    const threadSession = running.find((s) => s.label.endsWith(`#${thread}`))!;
    const pid = first.process.pid;
    process.kill(pid, 'SIGKILL');
    await waitFor('serve gone', () => !processExists(pid));

    const second = await serve();
    await second.waitForText(/worktrees\/stray \(branch stray\) belongs to/);
    // The thread's session kept running in its session host while serve was gone: taken back as it is, the
    // same agent (no new start), before anyone writes.
    await second.waitForText(/its session is taken back, still running/);
    const after = await cliJson<Array<{ id: string; pid: number }>>(['status'], env);
    expect(after.find((s) => s.id === threadSession.id)?.pid).toBe(threadSession.pid);
    discord.userSends({ userId: OWNER, channelId: thread, content: 'PWD' });
    await waitFor(
      'the same worktree again',
      () =>
        discord.messages.filter(
          (m) => m.channelId === thread && m.content.includes(`proj in ${worktreeOf(thread)}`),
        ).length === 2,
      { timeoutMs: 20_000 },
    );
    expect(
      discord.messages.some(
        (m) => m.channelId === thread && /proj ready/.test(m.content) && m.id > firstReady,
      ),
    ).toBe(false);
    expect(
      git(repo, 'worktree', 'list')
        .split('\n')
        .filter((l) => l.includes('thread-')),
    ).toHaveLength(1);
    // The thread was written into the config, comments kept; it survives an edit of the file.
    const config = readFileSync(configFile, 'utf8');
    expect(config).toContain('# the project');
    expect(config).toMatch(new RegExp(`threads:\\n\\s+- id: "${thread}"`));
  });
});
