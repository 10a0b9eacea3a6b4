import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TelegramChannel } from '../../src/channels/telegram/telegram-channel.js';
import { systemClock, type Clock } from '../../src/core/clock.js';
import { ChannelRelay } from '../../src/sessions/channel-relay.js';
import { encodeButton } from '../../src/channels/callback-data.js';
import type { ChatTarget } from '../../src/channels/contract.js';
import type { SessionRecord } from '../../src/store/session-store.js';
import { openStore, type Store } from '../../src/store/store.js';
import { startFakeTelegram, type FakeMessage, type FakeTelegram } from '../fakes/telegram/server.js';
import { buttonData, hasButtons, OWNER, STRANGER } from '../support/telegram-setup.js';
import { openPrompt as openStoredPrompt, permissionPrompt, yesNoPrompt } from '../support/temp-store.js';
import { FakeClock } from '../support/fake-clock.js';
import { waitFor } from '../support/wait.js';

let dir: string;
let fake: FakeTelegram;
let store: Store;
let relay: ChannelRelay;
/** What the relay logged (its failures). */
let logs: string[] = [];

beforeEach(async () => {
  logs = [];
  dir = mkdtempSync(path.join(tmpdir(), 'ab-relay-'));
  fake = await startFakeTelegram();
  store = openStore({ dir });
  relay = await startRelay();
});

afterEach(async () => {
  await relay.stop();
  store.close();
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

async function startRelay(
  options: { clock?: Clock; chatsFor?: (session: SessionRecord) => ChatTarget[] } = {},
): Promise<ChannelRelay> {
  const relayStore = openStore({ dir });
  let created: ChannelRelay | null = null;
  const channel = new TelegramChannel({
    token: fake.token,
    apiRoot: fake.apiRoot,
    onReconnect: () => created?.reconnected(),
  });
  created = new ChannelRelay({
    channel,
    store: relayStore,
    clock: options.clock ?? systemClock,
    chats: [{ chatId: String(OWNER) }],
    ...(options.chatsFor ? { chatsFor: options.chatsFor } : {}),
    allowedUsers: new Set([String(OWNER)]),
    outputThreshold: 1500,
    isAlive: () => true,
    log: (line) => logs.push(line),
  });
  expect(await created.start()).toBe(true);
  return created;
}

function session(id = 'aaaaaaaa-0000-4000-8000-000000000001', label = 'app') {
  return store.sessions.create({
    id,
    agent: 'claude',
    cwd: `/src/${label}`,
    pid: 1,
    recording: null,
    approveFrom: ['telegram'],
    label,
  });
}

const openPrompt = (sessionId: string, prompt = permissionPrompt(), ttlMs = 60_000) =>
  openStoredPrompt(store, sessionId, prompt, ttlMs);

const withButtons = () => fake.waitForMessage((m) => hasButtons(m), 10_000);
const reply = (pattern: RegExp) => fake.waitForMessage((m) => pattern.test(m.text ?? ''), 10_000);
const answers = (pattern: RegExp) =>
  waitFor(`a callback answer ${pattern}`, () => fake.callbackAnswers.some((a) => pattern.test(a.text ?? '')));

describe('Telegram relay', () => {
  it('sends what the agent said before what it then asks, even when both arrive while it is still sending', async () => {
    const s = session();
    store.channels.addMessage(s.id, 'notice', 'first notice');
    // Sends to one chat are spaced a second apart: the next two are written while the first is on its way.
    await fake.waitForMessage((m) => m.text === 'first notice', 10_000);
    store.channels.addMessage(s.id, 'notice', '🔄 I will create the file now.');
    openPrompt(s.id);
    await withButtons();
    const texts = fake.messages(OWNER).map((m) => m.text ?? '');
    const note = texts.indexOf('🔄 I will create the file now.');
    const prompt = texts.findIndex((t) => t.includes('touch x'));
    expect(note).toBeGreaterThanOrEqual(0);
    expect(note).toBeLessThan(prompt);
  });

  it('sends a prompt with one button per choice and a default, and records the answer', async () => {
    const s = session();
    const record = openPrompt(s.id);
    const message = await withButtons();
    expect(message.text).toContain('touch x');
    expect((message.reply_markup?.inline_keyboard ?? []).flat().map((b) => b?.text)).toEqual([
      '1. Yes',
      '2. Yes, and always allow',
      '3. No',
      '✍️ No, and say why…',
      'Use default (3. No)',
    ]);
    for (const b of (message.reply_markup?.inline_keyboard ?? []).flat())
      expect(Buffer.byteLength(b?.callback_data ?? '')).toBeLessThanOrEqual(64);
    fake.userPressesButton({ userId: OWNER, messageId: message.messageId, data: buttonData(message, '2.') });
    await answers(/Answered: 2\. Yes, and always allow/);
    expect(store.prompts.get(record.id)).toMatchObject({
      status: 'reply_received',
      decidedBy: `telegram:${OWNER}`,
      reply: { type: 'choice', number: 2 },
    });
  });

  it('edits the message with the outcome, removing the buttons', async () => {
    const s = session();
    const record = openPrompt(s.id);
    const message = await withButtons();
    store.prompts.close(record.id, 'resolved', 'terminal:local', 'answered at the terminal');
    await waitFor(
      'the edit',
      () => (message.text ?? '').includes('Answered at the terminal') && !hasButtons(message),
    );
  });

  it('refuses malformed, unknown and expired button data, and strangers, without changing anything', async () => {
    const s = session();
    const record = openPrompt(s.id, yesNoPrompt(), 1_000);
    const message = await withButtons();
    const yes = buttonData(message, '✅ Yes');
    fake.userPressesButton({ userId: OWNER, messageId: message.messageId, data: 'ans:zzzz', force: true });
    await answers(/not from agent-bridge/);
    fake.userPressesButton({
      userId: OWNER,
      messageId: message.messageId,
      data: yes.replace(/^ans:[0-9a-f]{8}/, 'ans:00000000'),
      force: true,
    });
    await answers(/Not applied: no prompt/);
    fake.userPressesButton({
      userId: OWNER,
      messageId: message.messageId,
      data: yes.replace(/:[0-9a-f]{16}:/, ':0000000000000000:'),
      force: true,
    });
    await answers(/Not applied: this button is not valid/);
    await waitFor('expiry', () => Date.now() > record.expiresAt);
    fake.userPressesButton({ userId: OWNER, messageId: message.messageId, data: yes, force: true });
    await answers(/Not applied: the prompt expired/);
    expect(store.prompts.get(record.id)?.status).toBe('awaiting_reply');
    const events = store.db
      .prepare("SELECT COUNT(*) AS n FROM audit_events WHERE event = 'REPLY_REJECTED'")
      .get() as { n: number };
    expect(events.n).toBeGreaterThanOrEqual(4);
  });

  it('takes a free-text answer as a reply to the prompt message', async () => {
    const s = session();
    const record = openPrompt(s.id, {
      ...yesNoPrompt(),
      kind: 'free_text',
      excerpt: 'Commit message:',
      detail: 'Commit message:',
      safeDefault: null,
      key: 'ft',
    });
    const message = await reply(/Reply to this message with your answer/);
    expect(message.text).toContain('Commit message:');
    expect(hasButtons(message)).toBe(false);
    fake.userSendsText({ userId: OWNER, text: 'fix: the bug', replyToMessageId: message.messageId });
    await reply(/Answered: "fix: the bug"/);
    expect(store.prompts.get(record.id)?.reply).toEqual({ type: 'text', text: 'fix: the bug' });
  });

  it('"No, and say why…": the words replied to the prompt deny it with that reason', async () => {
    const s = session();
    const record = openPrompt(s.id);
    const message = await withButtons();
    fake.userPressesButton({ userId: OWNER, messageId: message.messageId, data: buttonData(message, '✍️') });
    await reply(/Reply to the prompt message with your words/);
    expect(store.prompts.get(record.id)?.status).toBe('awaiting_reply');
    fake.userSendsText({ userId: OWNER, text: 'use the staging db', replyToMessageId: message.messageId });
    await reply(/Answered: 3\. No: "use the staging db"/);
    expect(store.prompts.get(record.id)?.reply).toEqual({
      type: 'choice',
      number: 3,
      text: 'use the staging db',
    });
  });

  it('types plain text into the only session, and asks which when there are several', async () => {
    const one = session();
    fake.userSendsText({ userId: OWNER, text: 'run the tests please' });
    await waitFor(
      'input queued',
      () =>
        store.channels
          .takeInputs(one.id)
          .map((i) => i.text)
          .join() === 'run the tests please',
    );
    const two = session('bbbbbbbb-0000-4000-8000-000000000002', 'api');
    fake.userSendsText({ userId: OWNER, text: 'and deploy' });
    await reply(/Several sessions are running/);
    fake.userSendsText({ userId: OWNER, text: '/switch zzzz' });
    await reply(/^No one session starts with zzzz — one of: (aaaaaaaa, bbbbbbbb|bbbbbbbb, aaaaaaaa)$/);
    fake.userSendsText({ userId: OWNER, text: '/switch bbbb' });
    await reply(/Messages here now go to bbbbbbbb/);
    fake.userSendsText({ userId: OWNER, text: 'deploy api' });
    await waitFor('input for the second', () =>
      store.channels.takeInputs(two.id).some((i) => i.text === 'deploy api'),
    );
    fake.userSendsText({ userId: OWNER, text: '/sessions' });
    const list = await reply(/aaaaaaaa · claude · app/);
    expect(list.text).toMatch(/bbbbbbbb · claude · api .*◀/);
  });

  it('answers /status, /approvals and /help, and ignores strangers', async () => {
    const s = session();
    openPrompt(s.id);
    await withButtons();
    fake.userSendsText({ userId: OWNER, text: '/approvals' });
    await reply(/permission: Do you want to proceed\?/);
    // A shell's question after its output: listed by the question, not by the lines above it.
    const output = 'compiled module alpha in 3.2 seconds\n'.repeat(4);
    openPrompt(
      s.id,
      yesNoPrompt({
        excerpt: `${output}Deploy to prod? (y/n)`,
        detail: `${output}Deploy to prod? (y/n)`,
        key: 'yes_no|deploy',
      }),
    );
    const asked = await fake.waitForMessage(
      (m) => hasButtons(m) && /Deploy to prod/.test(m.text ?? ''),
      10_000,
    );
    // Its subject line (what a phone's notification shows first) is the question, above the full text.
    expect(asked.text?.split('\n').slice(0, 3)).toEqual([
      `🔔 Yes or no · claude · app · ${hostname()}`,
      'Deploy to prod? (y/n)',
      'compiled module alpha in 3.2 seconds',
    ]);
    fake.userSendsText({ userId: OWNER, text: '/approvals' });
    const listed = await reply(/yes_no: /);
    expect(listed.text).toMatch(/• [0-9a-f]{8} yes_no: Deploy to prod\? \(y\/n\)$/m);
    fake.userSendsText({ userId: OWNER, text: '/help' });
    await reply(/Prompts arrive here with buttons/);
    fake.userSendsText({ userId: STRANGER, text: '/status' });
    fake.userSendsText({ userId: OWNER, text: '/status' });
    await reply(/1 session\(s\) running/);
    expect(fake.messages(STRANGER)).toHaveLength(0);
    const unauthorized = store.db
      .prepare("SELECT COUNT(*) AS n FROM audit_events WHERE event = 'UNAUTHORIZED'")
      .get() as { n: number };
    expect(unauthorized.n).toBe(1);
  });

  it('sends long agent output as a file, short output as text', async () => {
    const s = session();
    store.channels.addMessage(s.id, 'message', 'short reply');
    store.channels.addMessage(s.id, 'message', 'x'.repeat(5000));
    await reply(/^short reply$/);
    const file = await fake.waitForMessage((m) => m.document !== undefined, 10_000);
    expect(file.document?.file_name).toMatch(/^response-\d{6}\.md$/);
    expect(file.document?.bytes.length).toBe(5000);
  });

  it('refuses a 51 MB upload with a clear message', async () => {
    session();
    fake.userSendsDocument({ userId: OWNER, fileName: 'huge.bin', bytes: Buffer.alloc(51 * 1024 * 1024) });
    await reply(/too large.*the limit is 50 MB/);
  });

  it("refuses a file over Telegram's 20 MB download limit in one line, without asking Telegram for it", async () => {
    const s = session();
    fake.userSendsDocument({ userId: OWNER, fileName: 'big.bin', bytes: Buffer.alloc(21 * 1024 * 1024) });
    const refused = await reply(/big\.bin/);
    expect(refused.text).toBe(
      "Not passed to the session: could not receive big.bin: 21 MB is over Telegram's 20 MB download limit for bots",
    );
    expect(fake.calls.some((c) => c.method === 'getFile')).toBe(false);
    expect(store.channels.takeInputs(s.id)).toEqual([]);
  });

  it('"Show more" shows the output of a waiting prompt only: a resolved one, or one without the button, says so', async () => {
    const s = session();
    const record = openPrompt(s.id, {
      ...yesNoPrompt(),
      kind: 'unknown',
      confidence: 'low',
      excerpt: 'still compiling',
      detail: 'step 1 of 3\nstill compiling',
      safeDefault: null,
      key: 'unknown|compiling',
    });
    const message = await withButtons();
    const showMore = buttonData(message, '📄 Show more');
    const lastOutputs = () => fake.messages(OWNER).filter((m) => (m.text ?? '').startsWith('Last output:'));
    fake.userPressesButton({ userId: OWNER, messageId: message.messageId, data: showMore });
    await reply(/^Last output:\nstep 1 of 3\nstill compiling$/);
    store.prompts.close(record.id, 'resolved', 'terminal:local', 'answered at the terminal');
    await waitFor('the edit', () => !hasButtons(message));
    fake.userPressesButton({ userId: OWNER, messageId: message.messageId, data: showMore, force: true });
    await answers(/This prompt is no longer waiting for an answer/);
    // A yes/no prompt never had the button: data made up for it shows nothing either.
    const other = openPrompt(s.id, yesNoPrompt());
    const asked = await fake.waitForMessage(
      (m) => hasButtons(m) && m.messageId !== message.messageId,
      10_000,
    );
    const forged = encodeButton(other.id, s.id, other.nonce, 'm');
    fake.userPressesButton({ userId: OWNER, messageId: asked.messageId, data: forged, force: true });
    await waitFor(
      'a second refusal',
      () => fake.callbackAnswers.filter((a) => /no longer waiting/.test(a.text ?? '')).length === 2,
    );
    expect(lastOutputs()).toHaveLength(1);
  });

  it('under run (no host routing chats), types text from any chat an allowed person writes in', async () => {
    const s = session();
    const GROUP = -1001234567890;
    fake.addChat({ id: GROUP, title: 'team' });
    fake.userSendsText({ userId: OWNER, chatId: GROUP, text: 'from the group' });
    await waitFor('input queued', () =>
      store.channels.takeInputs(s.id).some((i) => i.text === 'from the group'),
    );
  });

  it('pauses answers after 10 a minute for one session', async () => {
    const s = session();
    const record = openPrompt(s.id);
    const message = await withButtons();
    for (let i = 0; i < 11; i++) {
      fake.userPressesButton({
        userId: OWNER,
        messageId: message.messageId,
        data: buttonData(message, '3.'),
        force: true,
      });
    }
    await answers(/Too many answers/);
    await reply(/answers are paused briefly/);
    expect(store.prompts.get(record.id)?.status).toBe('reply_received');
  });

  it('keeps what the agent said while the network is down, and sends it in order once it is back', async () => {
    const s = session();
    fake.setOffline(true);
    store.channels.addMessage(s.id, 'notice', 'said while offline, first');
    store.channels.addMessage(s.id, 'notice', 'said while offline, second');
    await waitFor('a failed send', () => logs.some((line) => line.includes('could not forward a message')), {
      timeoutMs: 10_000,
    });
    fake.setOffline(false);
    store.channels.addMessage(s.id, 'notice', 'said once back');
    await fake.waitForMessage((m) => m.text === 'said once back', 30_000);
    expect(fake.messages(OWNER).map((m) => m.text)).toEqual([
      'said while offline, first',
      'said while offline, second',
      'said once back',
    ]);
  });

  it('sends a held message before the next prompt, without waiting for its turn to be tried again', async () => {
    const s = session();
    fake.failNext('sendMessage', { status: 400 });
    store.channels.addMessage(s.id, 'notice', '🔄 I will create the file now.');
    await waitFor('a failed send', () => logs.some((line) => line.includes('could not forward a message')));
    openPrompt(s.id);
    await withButtons();
    expect(fake.messages(OWNER).map((m) => (hasButtons(m) ? 'the prompt' : m.text))).toEqual([
      '🔄 I will create the file now.',
      'the prompt',
    ]);
  });

  it('tries a held message again when it is due, whatever else failed before it', async () => {
    await relay.stop();
    const clock = new FakeClock(Date.now());
    const OTHER = OWNER + 1;
    relay = await startRelay({
      clock,
      chatsFor: (s) => [{ chatId: String(s.label === 'a' ? OWNER : OTHER) }],
    });
    const a = session('aaaaaaaa-0000-4000-8000-00000000000a', 'a');
    const b = session('aaaaaaaa-0000-4000-8000-00000000000b', 'b');
    const failed = (what: string) => waitFor(what, () => logs.some((line) => line.includes(what)));
    fake.failNext('sendMessage', { status: 400 });
    openPrompt(a.id);
    relay.poke();
    await failed('could not send prompt');
    clock.advance(3_000);
    fake.failNext('sendMessage', { status: 400 });
    store.channels.addMessage(b.id, 'notice', 'for chat b');
    relay.poke();
    await failed('could not forward a message');
    clock.advance(2_000); // the prompt's retry is due (5 s after it failed); the message's is 3 s later
    await withButtons();
    clock.advance(3_000);
    // Only the time the message is due has passed: no later tick may be needed to send it.
    await waitFor('the held message sent', () => {
      clock.advance(0);
      return fake.messages(OTHER).some((m) => m.text === 'for chat b');
    });
  });

  it('delivers prompts after the network comes back, and honours 429 retry_after', async () => {
    const s = session();
    fake.setOffline(true);
    openPrompt(s.id);
    await waitFor('a failed attempt', () => fake.calls.some((c) => c.method === 'sendMessage' || c.aborted), {
      timeoutMs: 10_000,
    }).catch(() => undefined);
    fake.failNext('sendMessage', { status: 429, retryAfter: 1 });
    fake.setOffline(false);
    const message = await fake.waitForMessage((m) => hasButtons(m), 30_000);
    expect(message.text).toContain('touch x');
    expect(fake.calls.some((c) => c.method === 'sendMessage' && c.status === 429)).toBe(true);
    expect(fake.messages(OWNER).filter(hasButtons as (m: FakeMessage) => boolean)).toHaveLength(1);
  });
});
