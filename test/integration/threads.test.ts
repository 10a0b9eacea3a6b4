import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Channel } from '../../src/channels/contract.js';
import { DiscordChannel } from '../../src/channels/discord/discord-channel.js';
import { TelegramChannel } from '../../src/channels/telegram/telegram-channel.js';
import { appendThreadEntry } from '../../src/config/thread-settings.js';
import type { Daemon } from '../../src/sessions/daemon/daemon.js';
import { type DaemonRepo } from '../../src/sessions/daemon/daemon.js';
import { openStore, type Store } from '../../src/store/store.js';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/server.js';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram/server.js';
import { git, makeRepo } from '../support/git-repo.js';
import { chattyRepo, startTestDaemon } from '../support/test-daemon.js';
import { endSessionHosts } from '../support/session-hosts.js';
import { waitFor } from '../support/wait.js';

const OWNER = '1400000000000000042';
const CHANNEL = '1400000000000000100';

let dir: string;
let repoDir: string;
let configFile: string;
let store: Store;
let discord: FakeDiscord;
let daemon: Daemon | null = null;

function repo(channel: string, chatId: string): DaemonRepo {
  return chattyRepo(
    'proj',
    repoDir,
    { [channel]: [chatId] },
    { config: { thread: { isolation: 'worktree' } } },
  );
}

async function startDaemon(channel: Channel, mapped: DaemonRepo): Promise<Daemon> {
  ({ daemon } = await startTestDaemon(
    store,
    [mapped],
    [{ channel, allowedUsers: new Set([OWNER, '4242']), defaultChats: [], exclusive: true, threads: true }],
    {
      saveThread: (name, entry) =>
        writeFileSync(configFile, appendThreadEntry(readFileSync(configFile, 'utf8'), name, entry)),
    },
  ));
  return daemon;
}

const discordChannel = () => new DiscordChannel({ token: discord.token, restApi: discord.restApi });
const botSays = (channelId: string, pattern: RegExp) =>
  discord.waitForMessage((m) => m.fromBot && m.channelId === channelId && pattern.test(m.content), 15_000);
const worktreeOf = (threadId: string) =>
  path.join(realpathSync(repoDir), '.agent-bridge', 'worktrees', `thread-${threadId}`);

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-threads-'));
  repoDir = makeRepo(path.join(dir, 'repo'));
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
  await endSessionHosts(path.join(dir, 'data'));
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
    // Commands start nothing: a fresh thread has no session (and no worktree) yet; a running one reports its own.
    const fresh = discord.createThread({ parentId: CHANNEL, name: 'just looking' });
    discord.userSends({ userId: OWNER, channelId: fresh, content: '/status' });
    await botSays(fresh, /No agent session in this thread yet/);
    expect(existsSync(worktreeOf(fresh))).toBe(false);
    discord.userSends({ userId: OWNER, channelId: a, content: '/status' });
    await botSays(
      a,
      new RegExp(`proj#${a} · Custom command \\(terminal driver\\) · running [^]*${worktreeOf(a)}`),
    );
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
    // Talking again: the clean thread gets a new worktree (its branch kept its commits); the dirty one its kept worktree.
    discord.userSends({ userId: OWNER, channelId: clean, content: 'PWD' });
    discord.userSends({ userId: OWNER, channelId: dirty, content: 'PWD' });
    await waitFor('both sessions back', () => store.sessions.list().length === 2, { timeoutMs: 15_000 });
    await waitFor('the clean worktree made again', () => existsSync(worktreeOf(clean)), {
      timeoutMs: 15_000,
    });
    expect(readFileSync(path.join(worktreeOf(dirty), 'work.txt'), 'utf8')).toBe('unsaved\n');
    expect(store.threads.get('discord', CHANNEL, dirty)?.state).toBe('active');
  });

  it('a worktree removed from outside while its session runs is noticed at once (watched, not polled) and said once', async () => {
    await startDaemon(discordChannel(), repo('discord', CHANNEL));
    const removed = discord.createThread({ parentId: CHANNEL, name: 'removed' });
    const closed = discord.createThread({ parentId: CHANNEL, name: 'closed' });
    discord.userSends({ userId: OWNER, channelId: removed, content: 'PWD' });
    discord.userSends({ userId: OWNER, channelId: closed, content: 'PWD' });
    await botSays(removed, /proj in/);
    await botSays(closed, /proj in/);
    // agent-bridge removing a closed thread's worktree itself is not "removed outside".
    discord.archiveThread(closed);
    await waitFor("the closed thread's worktree removed", () => !existsSync(worktreeOf(closed)), {
      timeoutMs: 15_000,
    });
    git(repoDir, 'worktree', 'remove', '--force', worktreeOf(removed));
    await botSays(removed, /worktree .* was removed outside agent-bridge, so its session ended/);
    await waitFor(
      'the thread closed',
      () => store.threads.get('discord', CHANNEL, removed)?.state === 'closed',
    );
    const outside = (threadId: string) =>
      discord.messages.filter((m) => m.channelId === threadId && /removed outside/.test(m.content)).length;
    expect(outside(removed)).toBe(1);
    expect(outside(closed)).toBe(0);
    const lines = await store.audit.entriesSince(
      0,
      (e) => e.event === 'WORKTREE' && e['action'] === 'removed outside',
    );
    expect(lines.map((e) => e['thread'])).toEqual([removed]);
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

describe('thread settings at start', () => {
  it('a thread entry with startup: true starts its session (in its own folder, with its own settings) with the daemon', async () => {
    const thread = '1400000000000000555';
    const mapped = chattyRepo(
      'proj',
      repoDir,
      { discord: [CHANNEL] },
      {
        config: {
          thread: { isolation: 'worktree' },
          threads: [{ id: thread, chat: CHANNEL, startup: true, isolation: 'none' }],
        },
      },
    );
    await startDaemon(discordChannel(), mapped);
    await waitFor('the thread session started', () =>
      store.sessions.list().some((s) => s.label === `proj#${thread}`),
    );
    const record = store.threads.get('discord', CHANNEL, thread);
    expect(record?.state).toBe('active');
    // Its own entry says isolation: none, over the project's thread default (worktree).
    expect(record?.worktreePath).toBeNull();
    expect(store.sessions.list().find((s) => s.label === `proj#${thread}`)?.cwd).toBe(repoDir);
    expect(store.sessions.list().some((s) => s.label === 'proj')).toBe(false);
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

  it('each topic runs its own session in its own worktree; the General topic is the parent; closing a topic ends it', async () => {
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
    // Closing the topic ends its session and removes its clean worktree, as archiving a Discord thread does.
    telegram.userClosesTopic({ userId: 4242, chatId: FORUM, threadId: 77 });
    // Closed is written once the worktree is gone (its state says whether it was removed or kept).
    await waitFor(
      'the topic closed',
      () => store.threads.get('telegram', String(FORUM), '77')?.state === 'closed',
      {
        timeoutMs: 15_000,
      },
    );
    expect(existsSync(worktreeOf('77'))).toBe(false);
    expect(store.sessions.list().map((s) => s.label)).toEqual(['proj']);
  });
});
