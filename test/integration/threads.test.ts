import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { currentDiscoveryEnv } from '../../src/agents/discovery.js';
import { getAgent, resolveLaunch } from '../../src/agents/registry.js';
import type { Channel } from '../../src/channels/contract.js';
import { DiscordChannel } from '../../src/channels/discord/discord-channel.js';
import { TelegramChannel } from '../../src/channels/telegram/telegram-channel.js';
import type { RepoConfig } from '../../src/config/schema.js';
import { appendThreadEntry } from '../../src/config/thread-settings.js';
import { systemClock } from '../../src/core/clock.js';
import { Daemon, type DaemonRepo } from '../../src/sessions/daemon/daemon.js';
import { openStore, type Store } from '../../src/store/store.js';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/server.js';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram/server.js';
import { processExists, waitFor } from '../support/wait.js';

const AGENT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fakes/agent/chatty-agent.sh');
const OWNER = '1400000000000000042';
const CHANNEL = '1400000000000000100';

let dir: string;
let repoDir: string;
let configFile: string;
let store: Store;
let discord: FakeDiscord;
let daemon: Daemon | null = null;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' });
}

function repoConfig(overrides: Partial<RepoConfig> = {}): RepoConfig {
  return { name: 'proj', dir: repoDir, thread: { isolation: 'worktree' }, ...overrides };
}

function repo(channel: string, chatId: string, config = repoConfig()): DaemonRepo {
  return {
    name: 'proj',
    dir: repoDir,
    agent: getAgent('custom'),
    args: ['bash', AGENT, 'proj'],
    channels: [channel],
    chats: { [channel]: [chatId] },
    config,
    baseDir: repoDir,
  };
}

async function startDaemon(channel: Channel, mapped: DaemonRepo): Promise<Daemon> {
  const started = new Daemon({
    store,
    clock: systemClock,
    settings: {
      repos: [mapped],
      idleTimeoutMs: 600_000,
      outputThreshold: 1500,
      resume: false,
      rateLimits: null,
    },
    channels: [
      { channel, allowedUsers: new Set([OWNER, '4242']), defaultChats: [], exclusive: true, threads: true },
    ],
    resolve: async (spec, launch) => {
      const resolved = await resolveLaunch(spec, launch, currentDiscoveryEnv());
      return { command: resolved.command, args: resolved.args, found: resolved.discovered.found };
    },
    isAlive: processExists,
    log: () => undefined,
    saveThread: (name, entry) =>
      writeFileSync(configFile, appendThreadEntry(readFileSync(configFile, 'utf8'), name, entry)),
  });
  await started.start();
  daemon = started;
  return started;
}

const discordChannel = () => new DiscordChannel({ token: discord.token, restApi: discord.restApi });
const botSays = (channelId: string, pattern: RegExp) =>
  discord.waitForMessage((m) => m.fromBot && m.channelId === channelId && pattern.test(m.content), 15_000);
const worktreeOf = (threadId: string) =>
  path.join(realpathSync(repoDir), '.agent-bridge', 'worktrees', `thread-${threadId}`);

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-threads-'));
  repoDir = path.join(dir, 'repo');
  mkdirSync(repoDir);
  git(repoDir, 'init', '-q', '-b', 'main');
  git(repoDir, 'config', 'user.email', 'dev@example.com');
  git(repoDir, 'config', 'user.name', 'Dev');
  writeFileSync(path.join(repoDir, 'README.md'), 'hello\n');
  git(repoDir, 'add', '.');
  git(repoDir, 'commit', '-qm', 'first');
  configFile = path.join(dir, 'agent-bridge.yaml');
  writeFileSync(configFile, `# my config\nrepos:\n  - name: proj # the project\n    dir: ${repoDir}\n`);
  store = openStore({ dir: path.join(dir, 'data') });
  discord = await startFakeDiscord({ channels: [{ id: CHANNEL, name: 'proj' }] });
});

afterEach(async () => {
  await daemon?.stop();
  daemon = null;
  store.close();
  await discord.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('Discord threads as sessions, each in its own git worktree', () => {
  it('runs two threads in parallel in separate worktrees; the parent channel keeps its own session', async () => {
    await startDaemon(discordChannel(), repo('discord', CHANNEL));
    const a = discord.createThread({ parentId: CHANNEL, name: 'fix login' });
    const b = discord.createThread({ parentId: CHANNEL, name: 'new api' });
    discord.userSends({ userId: OWNER, channelId: a, content: 'PWD' });
    discord.userSends({ userId: OWNER, channelId: b, content: 'PWD' });
    discord.userSends({ userId: OWNER, channelId: CHANNEL, content: 'PWD' });
    await botSays(a, new RegExp(`proj in ${worktreeOf(a)}`));
    await botSays(b, new RegExp(`proj in ${worktreeOf(b)}`));
    await botSays(CHANNEL, new RegExp(`proj in ${realpathSync(repoDir)}$`, 'm'));
    const worktrees = git(repoDir, 'worktree', 'list');
    expect(worktrees).toContain(worktreeOf(a));
    expect(worktrees).toContain(worktreeOf(b));
    expect(git(repoDir, 'status', '--porcelain')).toBe('');
    expect(
      store.sessions
        .list()
        .map((s) => s.label)
        .sort(),
    ).toEqual(['proj', `proj#${a}`, `proj#${b}`].sort());
    // Threads created in chat are written into the config, its comments kept.
    const config = readFileSync(configFile, 'utf8');
    expect(config).toContain('# the project');
    expect(config).toMatch(new RegExp(`id: "?${a}"?`));
    discord.userSends({ userId: OWNER, channelId: CHANNEL, content: '/worktrees' });
    await botSays(CHANNEL, new RegExp(`thread ${a} · thread-${a} · running · clean`));
  });

  it('archiving removes a clean worktree, and keeps a dirty one with a warning', async () => {
    await startDaemon(discordChannel(), repo('discord', CHANNEL));
    const clean = discord.createThread({ parentId: CHANNEL, name: 'clean' });
    const dirty = discord.createThread({ parentId: CHANNEL, name: 'dirty' });
    discord.userSends({ userId: OWNER, channelId: clean, content: 'PWD' });
    discord.userSends({ userId: OWNER, channelId: dirty, content: 'PWD' });
    await botSays(clean, /proj in/);
    await botSays(dirty, /proj in/);
    writeFileSync(path.join(worktreeOf(dirty), 'work.txt'), 'unsaved\n');
    discord.archiveThread(clean);
    await waitFor('the clean worktree removed', () => !existsSync(worktreeOf(clean)), { timeoutMs: 15_000 });
    discord.archiveThread(dirty);
    await botSays(
      CHANNEL,
      new RegExp(`Thread ${dirty} was archived; its worktree .* has uncommitted changes, so it was kept`),
    );
    expect(readFileSync(path.join(worktreeOf(dirty), 'work.txt'), 'utf8')).toBe('unsaved\n');
    expect(store.threads.get('discord', CHANNEL, dirty)?.state).toBe('kept');
    expect(store.threads.get('discord', CHANNEL, clean)?.state).toBe('closed');
    expect(
      store.sessions
        .list()
        .filter((s) => s.status === 'active')
        .map((s) => s.label),
    ).toEqual([]);
  });

  it('after a restart a thread gets its session back in its existing worktree; one removed meanwhile is reported', async () => {
    let running = await startDaemon(discordChannel(), repo('discord', CHANNEL));
    const kept = discord.createThread({ parentId: CHANNEL, name: 'kept' });
    const removed = discord.createThread({ parentId: CHANNEL, name: 'removed' });
    discord.userSends({ userId: OWNER, channelId: kept, content: 'PWD' });
    discord.userSends({ userId: OWNER, channelId: removed, content: 'PWD' });
    await botSays(kept, /proj in/);
    await botSays(removed, /proj in/);
    await running.stop();
    daemon = null;
    git(repoDir, 'worktree', 'remove', '--force', worktreeOf(removed));
    running = await startDaemon(discordChannel(), repo('discord', CHANNEL));
    await botSays(removed, /worktree .* was removed outside agent-bridge/);
    discord.userSends({ userId: OWNER, channelId: kept, content: 'PWD again' });
    await botSays(kept, /proj got: PWD again/);
    discord.userSends({ userId: OWNER, channelId: kept, content: 'PWD' });
    await waitFor(
      'the same worktree',
      () =>
        discord.messages.filter(
          (m) => m.channelId === kept && m.content.includes(`proj in ${worktreeOf(kept)}`),
        ).length === 2,
    );
    expect(
      git(repoDir, 'worktree', 'list')
        .split('\n')
        .filter((l) => l.includes('thread-')),
    ).toHaveLength(1);
    // A thread whose worktree is gone falls back to the parent's session, with a notice.
    discord.userSends({ userId: OWNER, channelId: removed, content: 'still here' });
    await botSays(removed, /could not start .*messages here go to proj's session/);
  });
});

describe('Telegram forum topics as sessions', () => {
  let telegram: FakeTelegram;
  const FORUM = -1001234567890;

  beforeEach(async () => {
    telegram = await startFakeTelegram();
    telegram.addChat({ id: FORUM, title: 'team', isForum: true });
  });
  afterEach(async () => {
    await daemon?.stop();
    daemon = null;
    await telegram.close();
  });

  it('each topic runs its own session in its own worktree; the General topic is the parent', async () => {
    const channel = new TelegramChannel({ token: telegram.token, apiRoot: telegram.apiRoot });
    await startDaemon(channel, repo('telegram', String(FORUM)));
    telegram.userSendsText({ userId: 4242, chatId: FORUM, threadId: 77, text: 'PWD' });
    telegram.userSendsText({ userId: 4242, chatId: FORUM, text: 'PWD' });
    const inTopic = await telegram.waitForMessage((m) => /proj in .*thread-77/.test(m.text ?? ''), 15_000);
    expect(inTopic.threadId).toBe(77);
    const general = await telegram.waitForMessage(
      (m) => new RegExp(`proj in ${realpathSync(repoDir)}$`, 'm').test(m.text ?? ''),
      15_000,
    );
    expect(general.threadId).toBeUndefined();
    expect(store.threads.get('telegram', String(FORUM), '77')?.worktreePath).toBe(worktreeOf('77'));
  });
});
