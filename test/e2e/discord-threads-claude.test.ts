import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic/server.js';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/server.js';
import { claudeBinary, prepareClaudeHome, type ClaudeHome } from '../support/claude-env.js';
import { CliUnderPty } from '../support/cli-under-pty.js';
import { buttonId, CHANNEL, hasButtons, OWNER, writeDiscordConfig } from '../support/discord-setup.js';
import { git, makeRepo } from '../support/git-repo.js';
import { waitFor } from '../support/wait.js';

let anthropic: FakeAnthropic;
let discord: FakeDiscord;
let home: ClaudeHome;
let dir: string;
let repo: string;
let serve: CliUnderPty | null = null;

beforeEach(async () => {
  anthropic = await startFakeAnthropic();
  discord = await startFakeDiscord({ channels: [{ id: CHANNEL, name: 'proj' }] });
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'ab-dc-threads-')));
  repo = makeRepo(path.join(dir, 'repo'));
  home = await prepareClaudeHome({ baseUrl: anthropic.url, cwd: repo });
  const data = path.join(home.home, '.agent-bridge');
  const config = writeDiscordConfig(data, discord, repo, [
    '    agent: claude',
    '    thread: { isolation: worktree }',
  ]);
  const env = { ...home.env, AGENT_BRIDGE_HOME: data, AGENT_BRIDGE_CLAUDE_PATH: claudeBinary() };
  serve = new CliUnderPty(['serve', '--no-web', '--no-terminal', '--config', config], { cwd: dir, env });
  await serve.waitForText('agent-bridge serve: proj on discord');
});

afterEach(async () => {
  await serve?.stop();
  serve = null;
  await discord.close();
  await anthropic.close();
  await home.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const inThread = (thread: string, pattern: RegExp) =>
  discord.waitForMessage((m) => m.fromBot && m.channelId === thread && pattern.test(m.content), 40_000);

describe('a Discord thread runs its own Claude Code in its own git worktree', () => {
  it("answers in the thread; its Bash permission is allowed there and the tool runs in the thread's worktree", async () => {
    const thread = discord.createThread({ parentId: CHANNEL, name: 'task' });
    const worktree = path.join(repo, '.agent-bridge', 'worktrees', `thread-${thread}`);
    discord.userSends({ userId: OWNER, username: 'owner', channelId: thread, content: 'hello thread' });
    await inThread(thread, /Hello from the fake model! You said: hello thread/);
    discord.userSends({
      userId: OWNER,
      username: 'owner',
      channelId: thread,
      content: 'please run TOOL:in-thread.txt',
    });
    const prompt = await inThread(thread, /Permission/);
    expect(prompt.content).toContain(path.join(worktree, 'in-thread.txt'));
    discord.userPressesButton({ userId: OWNER, messageId: prompt.id, customId: buttonId(prompt, '1. Yes') });
    await waitFor('the file in the worktree', () => existsSync(path.join(worktree, 'in-thread.txt')), {
      timeoutMs: 30_000,
    });
    expect(existsSync(path.join(repo, 'in-thread.txt'))).toBe(false);
    await discord.waitFor(() => !hasButtons(prompt), 10_000, 'the prompt edited');
    // The main checkout saw nothing: neither the file nor the worktree folder.
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(
      discord.messages.some((m) => m.fromBot && m.channelId === CHANNEL && /Permission/.test(m.content)),
    ).toBe(false);
  });
});
