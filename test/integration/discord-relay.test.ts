import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DiscordChannel } from '../../src/channels/discord/discord-channel.js';
import { systemClock } from '../../src/core/clock.js';
import { ChannelRelay } from '../../src/sessions/channel-relay.js';
import { openStore, type Store } from '../../src/store/store.js';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/server.js';
import { buttonId, CHANNEL, ephemeralReplies, hasButtons, OWNER } from '../support/discord-setup.js';
import { openPrompt as openStoredPrompt, permissionPrompt } from '../support/temp-store.js';
import { waitFor } from '../support/wait.js';

let dir: string;
let fake: FakeDiscord;
let store: Store;
let relayStore: Store;
let relay: ChannelRelay;
let reconnects: number;
let errors: string[];

const SESSION = 'aaaaaaaa-0000-4000-8000-000000000001';
const POST_MESSAGE = /^POST \/channels\/\d+\/messages$/;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-dc-relay-'));
  fake = await startFakeDiscord({ channels: [{ id: CHANNEL, name: 'proj' }] });
  store = openStore({ dir });
  relayStore = openStore({ dir });
  reconnects = 0;
  errors = [];
  relay = makeRelay();
  expect(await relay.start()).toBe(true);
  store.sessions.create({
    id: SESSION,
    agent: 'claude',
    cwd: '/src/app',
    pid: 1,
    recording: null,
    approveFrom: ['discord'],
    label: 'app',
  });
});

function makeRelay(chats = [{ chatId: CHANNEL }]): ChannelRelay {
  const channel = new DiscordChannel({
    token: fake.token,
    restApi: fake.restApi,
    onReconnect: () => {
      reconnects += 1;
      relay.reconnected();
    },
    onError: (line) => errors.push(line),
  });
  return new ChannelRelay({
    channel,
    store: relayStore,
    clock: systemClock,
    chats,
    allowedUsers: new Set([OWNER]),
    outputThreshold: 1500,
    isAlive: () => true,
    log: (line) => errors.push(line),
  });
}

afterEach(async () => {
  await relay.stop();
  relayStore.close();
  store.close();
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

function openPrompt(command: string) {
  const detail = `Bash command\n\n${command}\n\nDo you want to proceed?`;
  return openStoredPrompt(store, SESSION, permissionPrompt({ detail, key: command }));
}

const promptMessages = (command: string) =>
  fake.messages.filter((m) => m.fromBot && hasButtons(m) && m.content.includes(command));

const successfulPosts = (command: string) =>
  fake.calls.filter(
    (c) =>
      c.method === 'POST' &&
      c.path === `/channels/${CHANNEL}/messages` &&
      c.status === 200 &&
      JSON.stringify(c.body ?? '').includes(command),
  );

/** The owner types in the channel; resolves once the relay passed it to the session. */
async function typedReachesSession(text: string): Promise<void> {
  fake.userSends({ userId: OWNER, username: 'owner', channelId: CHANNEL, content: text });
  await waitFor(`"${text}" passed to the session`, () =>
    store.channels.takeInputs(SESSION).some((input) => input.text === text),
  );
}

/**
 * A full round trip through the relay that leaves an open prompt alone (text sent while a prompt waits would
 * answer it or be held): a bridge command and its reply.
 */
async function roundTrip(): Promise<void> {
  const replies = () =>
    fake.messages.filter((m) => m.fromBot && /^[0-9a-f]{8} · claude · app/.test(m.content));
  const before = replies().length;
  fake.userSends({ userId: OWNER, username: 'owner', channelId: CHANNEL, content: '/sessions' });
  await waitFor('the /sessions reply', () => replies().length > before);
}

/** Once the relay recorded the prompt's message, a later sync sends nothing more for it. */
async function deliveredOnce(recordId: string, command: string): Promise<void> {
  await waitFor(
    'the prompt recorded as sent',
    () => store.channels.promptMessages(recordId, 'discord').length === 1,
    {
      timeoutMs: 20_000,
    },
  );
  await roundTrip(); // a full round trip later
  expect(promptMessages(command)).toHaveLength(1);
  expect(successfulPosts(command)).toHaveLength(1);
}

describe('Discord relay under faults', () => {
  it('resumes after a gateway drop; a prompt made while disconnected is delivered once', async () => {
    await typedReachesSession('before the drop');
    fake.failNext(POST_MESSAGE, 503);
    fake.failNext(POST_MESSAGE, 503);
    fake.failNext(POST_MESSAGE, 503);
    fake.failNext(POST_MESSAGE, 503);
    fake.dropGateway();
    const record = openPrompt('touch while-down');
    await waitFor('the gateway resumed', () => fake.gatewayStats.resumes === 1 && fake.isReady(), {
      timeoutMs: 10_000,
    });
    await waitFor('the channel told the relay', () => reconnects === 1);
    await fake.waitForMessage(
      (m) => m.fromBot && hasButtons(m) && m.content.includes('touch while-down'),
      20_000,
    );
    expect(fake.gatewayStats.identifies).toBe(1);
    expect(fake.calls.filter((c) => c.status === 503)).toHaveLength(4); // the first send failed for good
    expect(errors.filter((e) => /could not send prompt/.test(e))).toHaveLength(1);
    await roundTrip();
    await deliveredOnce(record.id, 'touch while-down');
  });

  it('a connection cut without a close frame, then an invalid session: identifies again, still routes', async () => {
    fake.dropGateway(1006, { invalidate: true });
    await waitFor('identified again', () => fake.gatewayStats.identifies === 2 && fake.isReady(), {
      timeoutMs: 20_000,
    });
    await typedReachesSession('after a new session');
    await waitFor('the channel told the relay', () => reconnects === 1);
  });

  it('a close discord.js does not recover from (the token was reset) is said in the log', async () => {
    fake.dropGateway(4004);
    await waitFor('the log line', () =>
      errors.some((e) => /gateway closed \(code 4004\) and will not reconnect/.test(e)),
    );
  });

  it('a storm of 429s while sending a prompt: delivered exactly once', async () => {
    fake.rateLimitNext(5, { route: POST_MESSAGE, retryAfterSeconds: 0.3 });
    const record = openPrompt('touch storm');
    await fake.waitForMessage((m) => m.fromBot && hasButtons(m) && m.content.includes('touch storm'), 20_000);
    expect(fake.calls.filter((c) => c.status === 429)).toHaveLength(5);
    await deliveredOnce(record.id, 'touch storm');
  });

  it('refuses a 51 MB attachment with a clear message, downloading nothing', async () => {
    fake.userSends({
      userId: OWNER,
      channelId: CHANNEL,
      content: 'here is the dump',
      attachments: [{ filename: 'dump.bin', size: 51 * 1024 * 1024 }],
    });
    const notice = await fake.waitForMessage((m) => m.fromBot && /too large/.test(m.content), 10_000);
    expect(notice.content).toMatch(/dump\.bin is too large \(51 MB\): the limit is 50 MB/);
    expect(fake.downloads).toEqual([]);
    expect(store.channels.takeInputs(SESSION)).toEqual([]);
    const refused = store.db
      .prepare("SELECT COUNT(*) AS n FROM audit_events WHERE event = 'UPLOAD_REFUSED'")
      .get() as { n: number };
    expect(refused.n).toBe(1);
  });

  it("an agent's file larger than the server accepts: the words arrive, and a notice instead of the file", async () => {
    const outputs = path.join(dir, 'outputs', 'app');
    mkdirSync(outputs, { recursive: true });
    writeFileSync(path.join(outputs, 'big.bin'), Buffer.alloc(11 * 1024 * 1024));
    writeFileSync(path.join(outputs, 'small.txt'), 'small');
    store.channels.addMessage(SESSION, 'message', 'Both files [ATTACH: big.bin] [ATTACH: small.txt]');
    const notice = await fake.waitForMessage(
      (m) => m.fromBot && /Not sent: big\.bin/.test(m.content),
      10_000,
    );
    expect(notice.content).toMatch(/larger than this Discord server accepts/);
    await fake.waitForMessage((m) => m.fromBot && m.attachments.some((a) => a.filename === 'small.txt'));
    expect(fake.messages.filter((m) => m.fromBot && m.content === 'Both files')).toHaveLength(1);
  });

  it('foreign buttons and garbage interactions crash nothing; later messages still work', async () => {
    const record = openPrompt('touch garbage');
    const prompt = await fake.waitForMessage((m) => m.fromBot && hasButtons(m), 10_000);
    const foreign = fake.userPressesButton({
      userId: OWNER,
      messageId: prompt.id,
      customId: 'someone-elses-button',
      force: true,
    });
    await fake.waitFor(
      () =>
        ephemeralReplies(fake).some(
          (m) => m.interactionId === foreign && /not from agent-bridge/.test(m.content),
        ),
      10_000,
      'the foreign button refused',
    );
    fake.sendRawDispatch('INTERACTION_CREATE', { garbage: true });
    fake.sendRawDispatch('INTERACTION_CREATE', {
      id: '1',
      type: 3,
      data: null,
      token: 'x',
      channel_id: CHANNEL,
    });
    fake.sendRawDispatch('MESSAGE_CREATE', { id: '2', channel_id: CHANNEL, content: 'no author' });
    // A modal submit with our prefix but not our form: no `text` input.
    const modal = fake.userSubmitsModal({
      userId: OWNER,
      channelId: CHANNEL,
      messageId: prompt.id,
      customId: `answer:${prompt.id}`,
      fields: { other: 'x' },
      force: true,
    });
    // A modal answer to a message that is no prompt.
    fake.userSubmitsModal({
      userId: OWNER,
      channelId: CHANNEL,
      customId: 'answer:123456789012345678',
      fields: { text: 'deny please' },
      force: true,
    });
    await fake.waitFor(
      () => fake.interactionResponses.some((r) => r.interactionId === modal),
      10_000,
      'the odd modal acknowledged',
    );
    await roundTrip();
    expect(fake.isReady()).toBe(true);
    expect(errors).toContainEqual(expect.stringMatching(/ignored a malformed INTERACTION_CREATE/));
    expect(store.prompts.get(record.id)?.status).toBe('awaiting_reply');
    fake.userPressesButton({ userId: OWNER, messageId: prompt.id, customId: buttonId(prompt, '1. Yes') });
    await waitFor('the real answer', () => store.prompts.get(record.id)?.status === 'reply_received');
    // The form for a message that is no prompt was told so, and typed nothing into the session.
    expect(ephemeralReplies(fake).map((m) => m.content)).toContain(
      'This prompt is no longer waiting for an answer.',
    );
  });

  it('a restart between the prompt and the click: the old message still answers, exactly once, and is not sent again', async () => {
    const record = openPrompt('touch restart.txt');
    await deliveredOnce(record.id, 'touch restart.txt');
    const [prompt] = promptMessages('touch restart.txt');
    await relay.stop();
    relay = makeRelay();
    expect(await relay.start()).toBe(true);
    fake.userPressesButton({ userId: OWNER, messageId: prompt!.id, customId: buttonId(prompt!, '1. Yes') });
    await waitFor('the answer', () => store.prompts.get(record.id)?.status === 'reply_received');
    fake.userPressesButton({
      userId: OWNER,
      messageId: prompt!.id,
      customId: buttonId(prompt!, '1. Yes'),
      force: true,
    });
    await waitFor('the second click refused', () =>
      ephemeralReplies(fake).some((m) => /Not applied: already/.test(m.content)),
    );
    expect(store.prompts.get(record.id)?.decidedBy).toBe(`discord:${OWNER}`);
    expect(promptMessages('touch restart.txt')).toHaveLength(1);
  });

  it("without channel ids, prompts go to the owner's DMs; a click and words there answer and type", async () => {
    await relay.stop();
    relay = makeRelay([{ chatId: `dm:${OWNER}` }]);
    expect(await relay.start()).toBe(true);
    await typedReachesSession('hello from the channel'); // the owner is now known to the (fake) server
    const record = openPrompt('touch dm.txt');
    const prompt = await fake.waitForMessage(
      (m) => m.fromBot && hasButtons(m) && m.content.includes('touch dm.txt'),
    );
    expect(fake.channel(prompt.channelId)?.type).toBe(1);
    fake.userPressesButton({ userId: OWNER, messageId: prompt.id, customId: buttonId(prompt, '1. Yes') });
    await waitFor('the answer', () => store.prompts.get(record.id)?.status === 'reply_received');
    store.prompts.markInjected(store.prompts.get(record.id)!, 'y', 'operator'); // as the session does once it typed it
    await fake.waitFor(
      () => !hasButtons(prompt) && prompt.content.includes(`by <@${OWNER}>`),
      10_000,
      'the DM prompt edited',
    );
    fake.userSends({
      userId: OWNER,
      username: 'owner',
      channelId: prompt.channelId,
      content: 'and from the DM',
    });
    await waitFor('typed from the DM', () =>
      store.channels.takeInputs(SESSION).some((input) => input.text === 'and from the DM'),
    );
  });
});
