import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatTarget } from '../../src/channels/contract.js';
import { systemClock } from '../../src/core/clock.js';
import { ChannelRelay } from '../../src/sessions/channel-relay.js';
import { openStore, type Store } from '../../src/store/store.js';
import { startFakeSlack, type FakeSlack, type FakeSlackMessage } from '../fakes/slack/server.js';
import {
  buttonId,
  buttonsOf,
  CHANNEL,
  ephemeralTo,
  hasButtons,
  OWNER,
  shownText,
  slackChannelFor,
} from '../support/slack-setup.js';
import { openPrompt as openStoredPrompt, permissionPrompt, relaySession } from '../support/temp-store.js';
import { waitFor } from '../support/wait.js';

let dir: string;
let fake: FakeSlack;
let store: Store;
let relayStore: Store;
let relay: ChannelRelay;
let reconnects: number;
let errors: string[];

const SESSION = 'aaaaaaaa-0000-4000-8000-000000000001';

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-slack-relay-'));
  fake = await startFakeSlack({ channels: [{ id: CHANNEL, name: 'proj' }] });
  store = openStore({ dir });
  relayStore = openStore({ dir });
  reconnects = 0;
  errors = [];
  relay = makeRelay();
  expect(await relay.start()).toBe(true);
  relaySession(store, SESSION, 'slack');
});

function makeRelay(chats: ChatTarget[] = [{ chatId: CHANNEL }]): ChannelRelay {
  const channel = slackChannelFor(fake, {
    onReconnect: () => {
      reconnects += 1;
      relay.reconnected();
    },
    onError: (line) => errors.push(line),
    listensTo: (target, direct) => direct || target.chatId === CHANNEL,
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

function openPrompt(command: string, detail = `Bash command\n\n${command}\n\nDo you want to proceed?`) {
  return openStoredPrompt(store, SESSION, permissionPrompt({ detail, key: command }));
}

const promptMessages = (command: string) =>
  fake.messages.filter(
    (m) => m.fromBot && !m.ephemeralFor && hasButtons(m) && shownText(m).includes(command),
  );

const promptFor = (command: string) =>
  fake.waitForMessage(
    (m) => m.fromBot && !m.ephemeralFor && hasButtons(m) && shownText(m).includes(command),
    15_000,
  );

const successfulPosts = (command: string) =>
  fake.calls.filter(
    (c) => c.method === 'chat.postMessage' && c.ok && JSON.stringify(c.params).includes(command),
  );

/** A full round trip through the socket and the relay: a slash command and its ephemeral answer. */
async function roundTrip(): Promise<void> {
  const before = ephemeralTo(fake, OWNER).length;
  fake.userRunsCommand({ user: OWNER, channel: CHANNEL, text: 'sessions' });
  await waitFor('the /agent-bridge sessions answer', () => ephemeralTo(fake, OWNER).length > before);
}

async function deliveredOnce(recordId: string, command: string): Promise<void> {
  await waitFor(
    'the prompt recorded as sent',
    () => store.channels.promptMessages(recordId, 'slack').length === 1,
    {
      timeoutMs: 20_000,
    },
  );
  await roundTrip();
  expect(promptMessages(command)).toHaveLength(1);
  expect(successfulPosts(command)).toHaveLength(1);
}

describe('Slack relay', () => {
  it('a prompt is a Block Kit message: where it comes from, the command, a button per option and Other…; a press answers once and the message says who', async () => {
    const record = openPrompt('touch blocks.txt');
    const prompt = await promptFor('touch blocks.txt');
    expect(buttonsOf(prompt).map((b) => b.label)).toEqual([
      '1. Yes',
      '2. Yes, and always allow',
      '3. No',
      'No, and say why…',
    ]);
    const text = shownText(prompt);
    expect(text).toMatch(/🔔 \*Permission\* · claude · app · /);
    expect(text).toContain('```\nBash command\n\ntouch blocks.txt\n\nDo you want to proceed?\n```');
    expect(text).toMatch(
      /Session aaaaaaaa · \/src\/app · expires <!date\^\d+\^\{date_short_pretty\} at \{time\}\|[^>]+>, then: 3\. No/,
    );
    fake.userPressesButton({ user: OWNER, messageTs: prompt.ts, actionId: buttonId(prompt, '1. Yes') });
    await waitFor('the answer', () => store.prompts.get(record.id)?.status === 'reply_received');
    expect(store.prompts.get(record.id)?.decidedBy).toBe(`slack:${OWNER}`);
    await waitFor('the ephemeral answer', () =>
      ephemeralTo(fake, OWNER).some((m) => m.text === 'Answered: 1. Yes'),
    );
    expect(ephemeralTo(fake, OWNER).find((m) => m.text === 'Answered: 1. Yes')?.via).toBe('response_url');
    store.prompts.markInjected(store.prompts.get(record.id)!, '1', 'operator');
    await fake.waitFor(
      () => !hasButtons(prompt) && shownText(prompt).includes(`✅ *1. Yes* by <@${OWNER}>`),
      10_000,
      'the update',
    );
    expect(prompt.edits).toBe(1);
    expect(fake.calls.filter((c) => c.method === 'chat.update')).toHaveLength(1);
  });

  it('Other… opens a form; its words deny with that reason, said to the person alone', async () => {
    const record = openPrompt('touch other.txt');
    const prompt = await promptFor('touch other.txt');
    fake.userPressesButton({
      user: OWNER,
      messageTs: prompt.ts,
      actionId: buttonId(prompt, 'No, and say why…'),
    });
    await fake.waitFor(() => fake.views.some((v) => v.type === 'modal'), 10_000, 'the form');
    const form = fake.views.find((v) => v.type === 'modal')!;
    expect((form.view['title'] as { text: string }).text).toBe('Deny, and say why');
    fake.userSubmitsForm({ user: OWNER, viewId: form.id, value: 'use the staging copy' });
    await waitFor('the answer', () => store.prompts.get(record.id)?.status === 'reply_received');
    expect(store.prompts.get(record.id)?.reply).toEqual({
      type: 'choice',
      number: 3,
      text: 'use the staging copy',
    });
    await waitFor('told', () =>
      ephemeralTo(fake, OWNER).some((m) => m.text === 'Answered: 3. No: "use the staging copy"'),
    );
    expect(fake.messages.some((m) => !m.ephemeralFor && m.text.startsWith('Answered'))).toBe(false);
    // A form for a message that is no prompt types nothing anywhere.
    fake.userPressesButton({
      user: OWNER,
      messageTs: prompt.ts,
      actionId: buttonId(prompt, 'No, and say why…'),
      force: true,
    });
    await waitFor('told it is over', () =>
      ephemeralTo(fake, OWNER).some((m) => /no longer waiting/.test(m.text)),
    );
  });

  it('a question: a button per option, and Other… whose form answers in the agent\'s "Type something"', async () => {
    const record = openStoredPrompt(
      store,
      SESSION,
      permissionPrompt({
        kind: 'question',
        excerpt: 'Which color do you prefer?',
        detail: 'Which color do you prefer?',
        choices: [
          { number: 1, label: 'Red', description: 'warm' },
          { number: 2, label: 'Blue', description: 'cool' },
          { number: 3, label: 'Type something.' },
        ],
        safeDefault: null,
        allowForSessionChoice: undefined,
        key: 'color',
      }),
    );
    const prompt = await promptFor('Which color do you prefer?');
    expect(buttonsOf(prompt).map((b) => b.label)).toEqual(['1. Red', '2. Blue', 'Other…']);
    expect(shownText(prompt)).toContain('• *Red*: warm');
    fake.userPressesButton({ user: OWNER, messageTs: prompt.ts, actionId: buttonId(prompt, 'Other…') });
    await fake.waitFor(() => fake.views.some((v) => v.type === 'modal'), 10_000, 'the form');
    const form = fake.views.find((v) => v.type === 'modal')!;
    expect((form.view['title'] as { text: string }).text).toBe('Your own answer');
    fake.userSubmitsForm({ user: OWNER, viewId: form.id, value: 'teal' });
    await waitFor('the answer', () => store.prompts.get(record.id)?.status === 'reply_received');
    expect(store.prompts.get(record.id)?.reply).toEqual({ type: 'choice', number: 3, text: 'teal' });
  });

  it('a reply in the prompt\u2019s thread answers it; text elsewhere goes to the session', async () => {
    const record = openPrompt('touch thread.txt');
    const prompt = await promptFor('touch thread.txt');
    fake.userSends({
      user: OWNER,
      channel: CHANNEL,
      text: 'use <https://example.com|the docs> &amp; retry',
      threadTs: prompt.ts,
    });
    await waitFor('the answer', () => store.prompts.get(record.id)?.status === 'reply_received');
    // Words for a permission deny it, with them as the reason (the words unescaped, the link readable).
    expect(store.prompts.get(record.id)?.reply).toEqual({
      type: 'choice',
      number: 3,
      text: 'use https://example.com & retry',
    });
    fake.userSends({ user: OWNER, channel: CHANNEL, text: 'then run the tests &lt;all&gt;' });
    await waitFor('typed into the session', () =>
      store.channels.takeInputs(SESSION).some((input) => input.text === 'then run the tests <all>'),
    );
  });

  it('agent messages become mrkdwn (code intact, nobody mentioned); long ones a file; [ATTACH: …] files upload', async () => {
    store.channels.addMessage(
      SESSION,
      'message',
      '## Done\n**All** green <!channel>\n```ts\nconst a = 1 < 2;\n```',
    );
    const reply = await fake.waitForMessage((m) => m.fromBot && m.text.startsWith('*Done*'), 10_000);
    expect(reply.text).toBe('*Done*\n*All* green &lt;!channel&gt;\n```\nconst a = 1 &lt; 2;\n```');
    store.channels.addMessage(SESSION, 'message', 'y'.repeat(5_000));
    const file = await fake.waitForMessage((m) => m.fromBot && m.files.length === 1, 10_000);
    expect(file.files[0]!.name).toMatch(/^response-\d{6}\.md$/);
    expect(file.files[0]!.data?.length).toBe(5_000);
    expect(file.text).toBe('claude · app');
    expect(fake.calls.map((c) => c.method)).toEqual(
      expect.arrayContaining(['files.getUploadURLExternal', 'files.completeUploadExternal']),
    );
    const outputs = path.join(dir, 'outputs', 'app');
    mkdirSync(outputs, { recursive: true });
    writeFileSync(path.join(outputs, 'report.txt'), 'all green');
    store.channels.addMessage(SESSION, 'message', 'The report [ATTACH: report.txt] [ATTACH: ../secret]');
    const attached = await fake.waitForMessage((m) => m.files.some((f) => f.name === 'report.txt'), 10_000);
    expect(attached.files[0]!.data?.toString()).toBe('all green');
    await fake.waitForMessage((m) => m.fromBot && m.text === 'The report', 10_000);
    await fake.waitForMessage(
      (m) => m.fromBot && m.text.includes('⚠️ Not sent: ../secret (outside the outputs folder)'),
      10_000,
    );
  });

  it('stopping while it reconnects: no unhandled rejection, and a connection made late is closed', async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      fake.rateLimitNext(1, { method: 'apps.connections.open', retryAfterSeconds: 0.5 });
      fake.dropSocket();
      await waitFor('the reconnect under way', () =>
        fake.calls.some((c) => c.method === 'apps.connections.open' && c.status === 429),
      );
      await relay.stop();
      await fake.waitFor(
        () => fake.socketStats.connections === 2 && fake.socketStats.open === 0,
        10_000,
        'the late connection made and closed',
      );
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
      relay = makeRelay(); // afterEach stops it (never started)
    }
  });

  it('a prompt too long for Slack keeps its buttons: the detail gives way', async () => {
    const huge = `Edit file\n\n${'- old line\n+ new line\n'.repeat(600)}`;
    const record = openPrompt('touch huge.txt', `touch huge.txt\n${huge}`);
    const prompt = await promptFor('touch huge.txt');
    expect(buttonsOf(prompt).map((b) => b.label)).toContain('1. Yes');
    expect(shownText(prompt)).toContain('\n…\n```');
    await deliveredOnce(record.id, 'touch huge.txt');
  });

  it('when Slack still says msg_blocks_too_long, the prompt goes again with the excerpt only, buttons kept', async () => {
    await relay.stop();
    await fake.close();
    fake = await startFakeSlack({ channels: [{ id: CHANNEL, name: 'proj' }], blocksCharLimit: 600 });
    relay = makeRelay();
    expect(await relay.start()).toBe(true);
    openPrompt('touch tight.txt', `touch tight.txt\n${'x'.repeat(1_500)}`);
    const prompt = await fake.waitForMessage((m) => m.fromBot && hasButtons(m), 15_000);
    expect(buttonsOf(prompt).map((b) => b.label)).toContain('3. No');
    expect(shownText(prompt)).not.toContain('x'.repeat(700));
    expect(fake.calls.filter((c) => c.method === 'chat.postMessage').map((c) => c.error ?? 'ok')).toEqual([
      'msg_blocks_too_long',
      'ok',
    ]);
  });

  it('a wrong bot token or app-level token: start fails with one line naming which', async () => {
    const bot = slackChannelFor(fake, { token: 'xoxb-wrong-token-0000' });
    await expect(bot.start(() => undefined)).rejects.toThrow(
      /^slack refused the bot token \(invalid_auth\): check channels\.slack\.token/,
    );
    const app = slackChannelFor(fake, { appToken: 'xapp-1-A0-wrong-token' });
    await expect(app.start(() => undefined)).rejects.toThrow(
      /^slack refused the app-level token \(invalid_auth\): check channels\.slack\.app_token/,
    );
    expect(fake.socketStats.connections).toBe(1); // only the relay's own
  });

  it('a storm of 429s (Retry-After) while sending a prompt: delivered exactly once', async () => {
    fake.rateLimitNext(4, { method: 'chat.postMessage', retryAfterSeconds: 0.2 });
    const record = openPrompt('touch storm.txt');
    await promptFor('touch storm.txt');
    expect(fake.calls.filter((c) => c.status === 429)).toHaveLength(4);
    await deliveredOnce(record.id, 'touch storm.txt');
  });

  it('refresh_requested and a dropped socket: it reconnects, says so, and a prompt that failed while down is delivered once', async () => {
    fake.requestRefresh();
    await waitFor('reconnected after the refresh', () => reconnects === 1, { timeoutMs: 10_000 });
    expect(fake.socketStats.opens).toBe(2);
    fake.failNext('chat.postMessage', 'internal_error');
    fake.dropSocket();
    const record = openPrompt('touch while-down.txt');
    await waitFor('a failed send', () => errors.some((e) => /could not send prompt/.test(e)), {
      timeoutMs: 15_000,
    });
    await waitFor('reconnected after the drop', () => reconnects === 2, { timeoutMs: 10_000 });
    await promptFor('touch while-down.txt');
    await deliveredOnce(record.id, 'touch while-down.txt');
  });

  it('a restart between the prompt and the press: the old message still answers, once, and is not sent again', async () => {
    const record = openPrompt('touch restart.txt');
    await deliveredOnce(record.id, 'touch restart.txt');
    const [prompt] = promptMessages('touch restart.txt') as [FakeSlackMessage];
    await relay.stop();
    relay = makeRelay();
    expect(await relay.start()).toBe(true);
    fake.userPressesButton({ user: OWNER, messageTs: prompt.ts, actionId: buttonId(prompt, '1. Yes') });
    await waitFor('the answer', () => store.prompts.get(record.id)?.status === 'reply_received');
    fake.userPressesButton({
      user: OWNER,
      messageTs: prompt.ts,
      actionId: buttonId(prompt, '1. Yes'),
      force: true,
    });
    await waitFor('the second press refused', () =>
      ephemeralTo(fake, OWNER).some((m) => /Not applied: already/.test(m.text)),
    );
    expect(store.prompts.get(record.id)?.decidedBy).toBe(`slack:${OWNER}`);
    expect(promptMessages('touch restart.txt')).toHaveLength(1);
  });

  it('an event Slack sends twice (retry_attempt) is typed once', async () => {
    const before = fake.acks.length;
    fake.userSends({ user: OWNER, channel: CHANNEL, text: 'only once please' });
    await waitFor('acked', () => fake.acks.length > before);
    const envelope = fake.acks.at(-1)!.envelopeId;
    fake.redeliver(envelope);
    await waitFor('the retry acked', () => fake.acks.filter((a) => a.envelopeId === envelope).length === 2);
    await roundTrip();
    expect(store.channels.takeInputs(SESSION).filter((i) => i.text === 'only once please')).toHaveLength(1);
  });

  it("without channel ids, prompts go to the owner's DMs; a press there answers, and words there type", async () => {
    await relay.stop();
    relay = makeRelay([{ chatId: `dm:${OWNER}` }]);
    expect(await relay.start()).toBe(true);
    const record = openPrompt('touch dm.txt');
    const prompt = await promptFor('touch dm.txt');
    expect(fake.channel(prompt.channel)?.type).toBe('im');
    fake.userPressesButton({ user: OWNER, messageTs: prompt.ts, actionId: buttonId(prompt, '1. Yes') });
    await waitFor('the answer', () => store.prompts.get(record.id)?.status === 'reply_received');
    fake.userSends({ user: OWNER, channel: prompt.channel, text: 'and from the DM' });
    await waitFor('typed from the DM', () =>
      store.channels.takeInputs(SESSION).some((input) => input.text === 'and from the DM'),
    );
  });

  it('/agent-bridge: commands answered to the sender alone; usage for unknown words; refused where it does not listen', async () => {
    openPrompt('touch cmd.txt');
    await promptFor('touch cmd.txt');
    fake.userRunsCommand({ user: OWNER, channel: CHANNEL, text: 'approvals' });
    await waitFor('the approvals', () =>
      ephemeralTo(fake, OWNER).some((m) => /permission: Do you want to proceed/.test(m.text)),
    );
    fake.userRunsCommand({ user: OWNER, channel: CHANNEL, text: 'launch missiles' });
    await waitFor('the usage', () =>
      ephemeralTo(fake, OWNER).some((m) => /Unknown: `\/agent-bridge launch`/.test(m.text)),
    );
    const other = fake.addChannel({ name: 'random' });
    fake.userRunsCommand({ user: OWNER, channel: other, text: 'status' });
    await waitFor('refused there', () =>
      ephemeralTo(fake, OWNER).some((m) => /does not listen in this channel/.test(m.text)),
    );
    expect(store.channels.takeInputs(SESSION)).toEqual([]);
  });
});
