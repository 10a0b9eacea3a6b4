// Under `serve`, what the Telegram relay does with a chat no repository maps.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TelegramChannel } from '../../src/channels/telegram/telegram-channel.js';
import type { Daemon, DaemonRepo } from '../../src/sessions/daemon/daemon.js';
import { openStore, type Store } from '../../src/store/store.js';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram/server.js';
import { endSessionHosts } from '../support/session-hosts.js';
import { OWNER } from '../support/telegram-setup.js';
import { relaySession } from '../support/temp-store.js';
import { chattyRepo, startTestDaemon } from '../support/test-daemon.js';
import { waitFor } from '../support/wait.js';

/** A group the owner is in that no repository maps and that is not a default chat. */
const UNMAPPED = -1001111111111;
/** A group mapped to the repository. */
const MAPPED = -1002222222222;

let dir: string;
let store: Store;
let telegram: FakeTelegram;
let daemon: Daemon | undefined;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-serve-tg-'));
  process.env.AGENT_BRIDGE_HOME = path.join(dir, 'data');
  store = openStore({ dir: path.join(dir, 'data') });
  telegram = await startFakeTelegram();
  telegram.addChat({ id: UNMAPPED, title: 'elsewhere' });
  telegram.addChat({ id: MAPPED, title: 'web' });
});

afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  await endSessionHosts(path.join(dir, 'data'));
  store.close();
  await telegram.close();
  rmSync(dir, { recursive: true, force: true });
});

async function serve(repos: DaemonRepo[]): Promise<void> {
  const started = await startTestDaemon(store, repos, [
    {
      channel: new TelegramChannel({ token: telegram.token, apiRoot: telegram.apiRoot }),
      allowedUsers: new Set([String(OWNER)]),
      // Where `run --approve-from telegram` prompts go: the owner's private chat.
      defaultChats: [{ chatId: String(OWNER) }],
      exclusive: true,
    },
  ]);
  daemon = started.daemon;
  expect(started.hosted).toEqual(['telegram']);
}

/** The audit lines for text or files refused because no repository maps the chat. */
function unmappedRefusals(): Array<Record<string, unknown>> {
  const rows = store.db
    .prepare("SELECT line FROM audit_events WHERE event = 'REPLY_REJECTED' ORDER BY seq")
    .all() as Array<{ line: string }>;
  return rows
    .map((r) => JSON.parse(r.line) as Record<string, unknown>)
    .filter((d) => d.reason === 'no repository is mapped to this chat');
}

const inputCount = () =>
  (store.db.prepare('SELECT COUNT(*) AS n FROM session_inputs').get() as { n: number }).n;

describe('Telegram under serve: a chat no repository maps', () => {
  it("never types into the repository's running session; the refusal is audited", async () => {
    await serve([chattyRepo('web', dir, { telegram: [String(MAPPED)] })]);
    telegram.userSendsText({ userId: OWNER, chatId: MAPPED, text: 'hello web' });
    await telegram.waitForMessage((m) => /web got: hello web/.test(m.text ?? ''), 20_000);
    const before = inputCount();
    telegram.userSendsText({ userId: OWNER, chatId: UNMAPPED, text: 'not for any repository' });
    // Nor is a command answered there (the sessions of the repositories mapped elsewhere are not its business).
    telegram.userSendsText({ userId: OWNER, chatId: UNMAPPED, text: '/sessions' });
    telegram.userSendsDocument({
      userId: OWNER,
      chatId: UNMAPPED,
      fileName: 'notes.txt',
      bytes: Buffer.from('nothing to see'),
    });
    await waitFor('the refusals audited', () => unmappedRefusals().length === 3);
    expect(unmappedRefusals()).toEqual([
      expect.objectContaining({ channel: 'telegram', chat: String(UNMAPPED), kind: 'text' }),
      expect.objectContaining({ channel: 'telegram', chat: String(UNMAPPED), kind: 'text' }),
      expect.objectContaining({ channel: 'telegram', chat: String(UNMAPPED), kind: 'files' }),
    ]);
    expect(inputCount()).toBe(before);
    expect(telegram.messages(UNMAPPED)).toEqual([]);
    expect(telegram.calls.some((c) => c.method === 'getFile')).toBe(false);
  });

  it('still types into a `run --approve-from telegram` session from its default chat, and nothing from elsewhere', async () => {
    await serve([chattyRepo('web', dir, { telegram: [String(MAPPED)] })]);
    const run = relaySession(store, 'cccccccc-0000-4000-8000-00000000000c', 'telegram');
    telegram.userSendsText({ userId: OWNER, chatId: UNMAPPED, text: 'typed in the wrong chat' });
    await waitFor('the refusal audited', () => unmappedRefusals().length === 1);
    telegram.userSendsText({ userId: OWNER, text: 'for the run session' });
    const typed: string[] = [];
    await waitFor('input queued', () => {
      typed.push(...store.channels.takeInputs(run.id).map((i) => i.text));
      return typed.length > 0;
    });
    expect(typed).toEqual(['for the run session']);
  });
});
