import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DiscordChannel } from '../../src/channels/discord/discord-channel.js';
import type { Daemon } from '../../src/sessions/daemon/daemon.js';
import { type DaemonRepo } from '../../src/sessions/daemon/daemon.js';
import { openStore, type Store } from '../../src/store/store.js';
import { startFakeDiscord, type FakeDiscord, type FakeDiscordMessage } from '../fakes/discord/server.js';
import { buttonsOf } from '../support/discord-setup.js';
import { makeRepo } from '../support/git-repo.js';
import { chattyRepo, startTestDaemon } from '../support/test-daemon.js';
import { endSessionHosts } from '../support/session-hosts.js';
import { waitFor } from '../support/wait.js';

const OWNER = '1400000000000000042';
const STRANGER = '1400000000000000099';
const GENERAL = '1400000000000000200';
const WEB = '1400000000000000101';
const API = '1400000000000000102';

let dir: string;
let store: Store;
let discord: FakeDiscord;
let daemon: Daemon | null = null;

function repo(name: string, channelId: string, startup = false): DaemonRepo {
  const repoDir = path.join(dir, name);
  mkdirSync(repoDir, { recursive: true });
  return chattyRepo(
    name,
    repoDir,
    { discord: [channelId] },
    { startup, config: { thread: { isolation: 'worktree' } } },
  );
}

async function startDaemon(repos: DaemonRepo[]): Promise<Daemon> {
  const channel = new DiscordChannel({ token: discord.token, restApi: discord.restApi });
  ({ daemon } = await startTestDaemon(store, repos, [
    {
      channel,
      allowedUsers: new Set([OWNER]),
      defaultChats: [],
      exclusive: true,
      threads: true,
      panelChat: { chatId: GENERAL },
    },
  ]));
  return daemon;
}

const panelOf = (name: string, pattern: RegExp) =>
  discord.waitForMessage(
    (m) =>
      m.fromBot && m.channelId === GENERAL && m.content.includes(`**${name}**`) && pattern.test(m.content),
    15_000,
  );
const buttonOf = (message: FakeDiscordMessage, label: RegExp): string => {
  const button = buttonsOf(message).find((b) => label.test(b.label));
  if (!button) throw new Error(`no button ${label} in ${JSON.stringify(buttonsOf(message))}`);
  return button.customId;
};

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-panel-'));
  store = openStore({ dir: path.join(dir, 'data') });
  discord = await startFakeDiscord({
    channels: [
      { id: GENERAL, name: 'general' },
      { id: WEB, name: 'web' },
      { id: API, name: 'api' },
    ],
  });
});

afterEach(async () => {
  await daemon?.stop();
  daemon = null;
  store.close();
  await discord.close();
  await endSessionHosts(path.join(dir, 'data'));
  rmSync(dir, { recursive: true, force: true });
});

describe('the control panel in the general channel', () => {
  it('shows each project with Start / Stop; startup projects start with the daemon; buttons work for the owner only', async () => {
    await startDaemon([repo('web', WEB, true), repo('api', API)]);
    const web = await panelOf('web', /🟢 \*\*web\*\* · Custom command · running/);
    const api = await panelOf('api', /⚪ \*\*api\*\* · Custom command · stopped/);
    expect(store.sessions.list().map((s) => s.label)).toEqual(['web']);
    discord.userPressesButton({ userId: STRANGER, messageId: api.id, customId: buttonOf(api, /Start/) });
    await waitFor('the stranger refused', () =>
      discord.interactionResponses.some((r) => /not allowed/.test(JSON.stringify(r.data ?? {}))),
    );
    expect(store.sessions.list().map((s) => s.label)).toEqual(['web']);
    discord.userPressesButton({ userId: OWNER, messageId: api.id, customId: buttonOf(api, /Start/) });
    await panelOf('api', /🟢 \*\*api\*\* · Custom command · running/);
    expect(api.edits).toBeGreaterThan(0);
    discord.userPressesButton({ userId: OWNER, messageId: web.id, customId: buttonOf(web, /Stop/) });
    await panelOf('web', /⚪ \*\*web\*\* · Custom command · stopped/);
    expect(store.sessions.list().find((s) => s.label === 'web')?.status).not.toBe('active');
    expect(
      discord.messages.filter((m) => m.fromBot && m.channelId === GENERAL && !((m.flags ?? 0) & 64)),
    ).toHaveLength(2);
  });

  it('shows thread worktrees, and after a restart edits the same messages', async () => {
    const web = repo('web', WEB);
    makeRepo(web.dir);
    const running = await startDaemon([web]);
    const thread = discord.createThread({ parentId: WEB, name: 'task' });
    discord.userSends({ userId: OWNER, channelId: thread, content: 'hello' });
    await discord.waitForMessage(
      (m) => m.fromBot && m.channelId === thread && /web got: hello/.test(m.content),
      15_000,
    );
    const panel = await panelOf(
      'web',
      new RegExp(`🌿 thread ${thread} · thread-${thread} · running · clean`),
    );
    await running.stop();
    daemon = null;
    await startDaemon([web]);
    const before = panel.edits;
    await waitFor('the same message edited again', () => panel.edits > before, { timeoutMs: 15_000 });
    expect(
      discord.messages.filter((m) => m.fromBot && m.channelId === GENERAL && !((m.flags ?? 0) & 64)),
    ).toHaveLength(1);
  });
});
