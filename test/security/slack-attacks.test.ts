import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeButton } from '../../src/channels/callback-data.js';
import { systemClock } from '../../src/core/clock.js';
import { ChannelRelay } from '../../src/sessions/channel-relay.js';
import { openStore, type Store } from '../../src/store/store.js';
import { startFakeSlack, type FakeSlack, type FakeSlackMessage, type Json } from '../fakes/slack/server.js';
import {
  buttonId,
  CHANNEL,
  ephemeralTo,
  hasButtons,
  OWNER,
  shownText,
  slackChannelFor,
  STRANGER,
} from '../support/slack-setup.js';
import { openPrompt, permissionPrompt, relaySession } from '../support/temp-store.js';
import { waitFor } from '../support/wait.js';

const SESSION = 'aaaaaaaa-0000-4000-8000-0000000000a7';
let dir: string;
let fake: FakeSlack;
let store: Store;
let relayStore: Store;
let relay: ChannelRelay;
let errors: string[];
let evil: Server;
let evilRequests: Array<{ url: string; headers: IncomingHttpHeaders }>;
let evilUrl: string;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-slack-attack-'));
  fake = await startFakeSlack({ channels: [{ id: CHANNEL, name: 'proj' }] });
  store = openStore({ dir });
  relayStore = openStore({ dir });
  errors = [];
  relay = new ChannelRelay({
    channel: slackChannelFor(fake, {
      onError: (line) => errors.push(line),
      listensTo: (target, direct) => direct || target.chatId === CHANNEL,
    }),
    store: relayStore,
    clock: systemClock,
    chats: [{ chatId: CHANNEL }],
    allowedUsers: new Set([OWNER]),
    outputThreshold: 1500,
    isAlive: () => true,
    log: (line) => errors.push(line),
  });
  expect(await relay.start()).toBe(true);
  relaySession(store, SESSION, 'slack');
  evilRequests = [];
  evil = createServer((req, res) => {
    evilRequests.push({ url: req.url ?? '', headers: req.headers });
    res.end('secret-stealing server');
  });
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
  evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await relay.stop();
  relayStore.close();
  store.close();
  await fake.close();
  await new Promise((resolve) => evil.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const ask = (command: string) =>
  openPrompt(store, SESSION, permissionPrompt({ detail: `Bash\n\n${command}`, key: command }));
const promptFor = (command: string) =>
  fake.waitForMessage((m) => m.fromBot && hasButtons(m) && shownText(m).includes(command), 10_000);
const audited = (event: string) =>
  (store.db.prepare('SELECT COUNT(*) AS n FROM audit_events WHERE event = ?').get(event) as { n: number }).n;

/** A full round trip through the socket and the relay, after the events under test: a command answered. */
async function roundTrip(): Promise<void> {
  const before = ephemeralTo(fake, OWNER).length;
  fake.userRunsCommand({ user: OWNER, channel: CHANNEL, text: 'sessions' });
  await waitFor('the round trip', () => ephemeralTo(fake, OWNER).length > before);
}

describe('Slack under attack', () => {
  it('strangers: a press, a form of theirs and a command change nothing; only the press is answered, to them alone', async () => {
    const record = ask('touch stranger.txt');
    const prompt = await promptFor('touch stranger.txt');
    fake.userPressesButton({
      user: STRANGER,
      messageTs: prompt.ts,
      actionId: buttonId(prompt, 'No, and say why…'),
    });
    await waitFor('told', () => ephemeralTo(fake, STRANGER).some((m) => /not allowed/.test(m.text)));
    expect(fake.views).toEqual([]); // no form opened for them
    // A form submitted by a stranger (as if they had one) for the owner's prompt.
    fake.userSubmitsForm({
      user: STRANGER,
      viewId: 'V0FORGED01',
      value: 'yes',
      force: true,
      tamper: (view) => ({
        ...view,
        callback_id: 'agent-bridge:answer',
        private_metadata: JSON.stringify({ c: CHANNEL, m: prompt.ts }),
        state: { values: { answer: { text: { type: 'plain_text_input', value: '1' } } } },
      }),
    });
    fake.userRunsCommand({ user: STRANGER, channel: CHANNEL, text: 'cancel' });
    await roundTrip();
    expect(store.prompts.get(record.id)?.status).toBe('awaiting_reply');
    expect(ephemeralTo(fake, STRANGER).map((m) => m.text)).toEqual(['You are not allowed to answer here.']);
    expect(audited('UNAUTHORIZED')).toBe(3);
  });

  it('a replayed press (the same envelope again, an old prompt\u2019s data on a new one) applies nothing twice', async () => {
    const first = ask('touch first.txt');
    const prompt = await promptFor('touch first.txt');
    const firstYes = buttonId(prompt, '1. Yes');
    const press = fake.userPressesButton({
      user: OWNER,
      messageTs: prompt.ts,
      actionId: buttonId(prompt, '1. Yes'),
    });
    await waitFor('answered', () => store.prompts.get(first.id)?.status === 'reply_received');
    fake.redeliver(press.envelopeId);
    await waitFor('the replay refused', () =>
      ephemeralTo(fake, OWNER).some((m) => /Not applied: already/.test(m.text)),
    );
    const second = ask('touch second.txt');
    const next = await promptFor('touch second.txt');
    // The first prompt's Yes, pressed on the second prompt's message.
    fake.userPressesButton({ user: OWNER, messageTs: next.ts, actionId: firstYes, force: true });
    // The second prompt's id with the first prompt's nonce.
    fake.userPressesButton({
      user: OWNER,
      messageTs: next.ts,
      actionId: encodeButton(second.id, SESSION, first.nonce, '1'),
      force: true,
    });
    await waitFor(
      'both refused',
      () => ephemeralTo(fake, OWNER).filter((m) => /Not applied/.test(m.text)).length >= 3,
    );
    expect(store.prompts.get(second.id)?.status).toBe('awaiting_reply');
    expect(audited('REPLY_REJECTED')).toBeGreaterThanOrEqual(3);
  });

  it('forged and oversized payloads and frames are dropped and said; nothing crashes and the next real press works', async () => {
    const record = ask('touch garbage.txt');
    const prompt = await promptFor('touch garbage.txt');
    const base = (): Json => ({
      type: 'block_actions',
      user: { id: OWNER, username: 'owner' },
      container: { type: 'message', message_ts: prompt.ts, channel_id: CHANNEL },
      trigger_id: '1.2.x',
      actions: [{ action_id: buttonId(prompt, '1. Yes'), type: 'button' }],
    });
    const forged: Json[] = [
      { ...base(), actions: [] },
      { ...base(), actions: [{ action_id: 'x'.repeat(256), type: 'button' }] },
      { ...base(), user: { id: 'u0lower', username: 'x' } },
      { ...base(), user: { id: `${OWNER}'; DROP TABLE prompts;--` } },
      { ...base(), container: { type: 'message', message_ts: 'not-a-ts', channel_id: CHANNEL } },
      { ...base(), container: { type: 'message', message_ts: prompt.ts, channel_id: '../../etc' } },
      { ...base(), user: null },
      {
        type: 'view_submission',
        user: { id: OWNER },
        view: {
          id: 'V0X',
          callback_id: 'agent-bridge:answer',
          private_metadata: 'not json',
          state: { values: {} },
        },
      },
      {
        type: 'view_submission',
        user: { id: OWNER },
        view: {
          id: 'V0X',
          callback_id: 'agent-bridge:answer',
          private_metadata: JSON.stringify({ c: CHANNEL, m: prompt.ts }),
          state: { values: { answer: { text: { type: 'plain_text_input', value: 'y'.repeat(5_000) } } } },
        },
      },
    ];
    for (const payload of forged) fake.sendEnvelope('interactive', payload);
    fake.sendEvent({
      type: 'message',
      channel: CHANNEL,
      user: OWNER,
      text: 'z'.repeat(40_001),
      ts: '1.000001',
    });
    fake.sendEvent({ type: 'message', channel: 'C0PROJ0001\n', user: OWNER, text: 'hi', ts: '1.000002' });
    fake.sendEnvelope('slash_commands', {
      command: '/agent-bridge',
      text: 'status',
      user_id: 'nobody',
      channel_id: CHANNEL,
    });
    fake.sendEnvelope('events_api', { event: null });
    fake.sendEnvelope('events_api', {});
    fake.sendRawFrame('{not json');
    fake.sendRawFrame(JSON.stringify({ type: 'ws_message', envelope_id: 'x', payload: {} }));
    fake.sendRawFrame(JSON.stringify({ type: 'interactive', payload: { type: 'block_actions' } }));
    fake.sendRawFrame(JSON.stringify([1, 2, 3]));
    await roundTrip();
    expect(store.prompts.get(record.id)?.status).toBe('awaiting_reply');
    expect(store.channels.takeInputs(SESSION)).toEqual([]);
    expect(
      errors.filter((e) => /ignored a (malformed|socket message)/.test(e)).length,
    ).toBeGreaterThanOrEqual(12);
    expect(fake.socketStats.connections).toBe(1); // the socket stayed up
    fake.userPressesButton({ user: OWNER, messageTs: prompt.ts, actionId: buttonId(prompt, '1. Yes') });
    await waitFor('the real answer', () => store.prompts.get(record.id)?.status === 'reply_received');
  });

  it('[ATTACH: …] never leaves the outputs folder: .., absolute paths and links are refused, said and audited', async () => {
    const outputs = path.join(dir, 'outputs', 'app');
    mkdirSync(outputs, { recursive: true });
    writeFileSync(path.join(dir, 'secret.txt'), 'top secret');
    symlinkSync(path.join(dir, 'secret.txt'), path.join(outputs, 'link.txt'));
    store.channels.addMessage(
      SESSION,
      'message',
      `Files [ATTACH: ../../secret.txt] [ATTACH: ${path.join(dir, 'secret.txt')}] [ATTACH: link.txt] [ATTACH: %2e%2e/secret.txt]`,
    );
    const notice = await fake.waitForMessage((m) => m.fromBot && m.text.includes('⚠️ Not sent'), 10_000);
    expect(notice.text.split('\n')).toHaveLength(4);
    expect(notice.text).toContain('outside the outputs folder (a link leads out)');
    expect(fake.calls.some((c) => c.method.startsWith('files.'))).toBe(false);
    expect(fake.messages.some((m) => m.files.length > 0)).toBe(false);
    expect(audited('ATTACHMENT_REFUSED')).toBe(4);
  });

  it('uploaded file names cannot lead out of the uploads folder', async () => {
    const names = ['../../evil.sh', '..', '.bashrc', 'a/b/../../../c.txt', 'x\u0000y.txt', 'line\nbreak.txt'];
    fake.userSends({
      user: OWNER,
      channel: CHANNEL,
      text: 'files',
      files: names.map((name, i) => ({ name, data: Buffer.from(`file ${i}`) })),
    });
    const input = await waitFor('the input', () =>
      store.channels.takeInputs(SESSION).find((i) => i.text.startsWith('files')),
    );
    const uploads = path.join(dir, 'uploads', 'app');
    const saved = input.text.split('\n').slice(1);
    expect(saved).toHaveLength(names.length);
    for (const file of saved) expect(path.dirname(file)).toBe(uploads);
    expect(readdirSync(uploads).sort()).toEqual(saved.map((f) => path.basename(f)).sort());
    for (const name of readdirSync(uploads)) expect(name).toMatch(/^[\w-][\w.-]*$/);
    expect(existsSync(path.join(dir, 'evil.sh'))).toBe(false);
  });

  it('the bot token never leaves Slack: a file or response_url elsewhere is not fetched; answers go by chat.postEphemeral', async () => {
    fake.userSends({
      user: OWNER,
      channel: CHANNEL,
      text: 'look',
      files: [{ name: 'x.txt', data: Buffer.from('x'), url: `${evilUrl}/files-pri/T-F/download/x.txt` }],
    });
    await fake.waitForMessage(
      (m) =>
        m.fromBot &&
        /Not passed to the session: could not receive x\.txt: the file is not on Slack/.test(m.text),
      10_000,
    );
    const record = ask('touch redirect.txt');
    const prompt = await promptFor('touch redirect.txt');
    fake.userPressesButton({
      user: OWNER,
      messageTs: prompt.ts,
      actionId: buttonId(prompt, '1. Yes'),
      tamper: (payload) => ({ ...payload, response_url: `${evilUrl}/hook` }),
    });
    await waitFor('answered', () => store.prompts.get(record.id)?.status === 'reply_received');
    await waitFor('told', () =>
      ephemeralTo(fake, OWNER).some((m) => m.text === 'Answered: 1. Yes' && m.via === 'api'),
    );
    expect(evilRequests).toEqual([]);
  });

  it("an agent's words mention nobody: <!channel>, <@U…> and links of its own are shown, not acted on", async () => {
    store.channels.addMessage(
      SESSION,
      'message',
      'ping <!channel> and <@U0OWNER001>, see <https://evil.example|docs>',
    );
    const said = await fake.waitForMessage(
      (m: FakeSlackMessage) => m.fromBot && m.text.startsWith('ping'),
      10_000,
    );
    expect(said.text).toBe(
      'ping &lt;!channel&gt; and &lt;@U0OWNER001&gt;, see &lt;https://evil.example|docs&gt;',
    );
  });
});
