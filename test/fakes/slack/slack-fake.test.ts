import type { App, SocketModeReceiver } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from './server.js';
import { boltApp } from './test-app.js';

const OWNER = 'U0OWNER001';
let fake: FakeSlack;
let app: App;
let receiver: SocketModeReceiver;
let general: string;

beforeEach(async () => {
  fake = await startFakeSlack({ channels: [{ name: 'general' }] });
  general = fake.addChannel({ name: 'proj' });
  ({ app, receiver } = boltApp(fake));
});

afterEach(async () => {
  await receiver.client.disconnect();
  await fake.close();
});

describe('the fake Slack, driven by the real @slack/bolt', () => {
  it('auth.test, Socket Mode hello, a message event in, chat.postMessage out (and its own echo ignored)', async () => {
    const seen: string[] = [];
    app.message(async ({ message, say }) => {
      const text = (message as { text?: string }).text ?? '';
      seen.push(text);
      await say(`echo: ${text}`);
    });
    await app.start();
    expect(fake.socketStats).toMatchObject({ opens: 1, connections: 1, open: 1 });
    fake.userSends({ user: OWNER, channel: general, text: 'hello' });
    const echo = await fake.waitForMessage((m) => m.fromBot && m.text === 'echo: hello');
    expect(echo.channel).toBe(general);
    await fake.waitFor(() => fake.acks.length >= 2, 5_000, 'both events acknowledged');
    expect(seen).toEqual(['hello']); // the bot's own message event was dispatched too, and Bolt ignored it
    expect(fake.calls.map((c) => c.method)).toEqual(
      expect.arrayContaining(['auth.test', 'apps.connections.open', 'chat.postMessage']),
    );
  });

  it('a button press acks, answers ephemerally on its response_url, and opens a form whose words come back', async () => {
    let words = '';
    app.action('go', async ({ ack, body, respond, client }) => {
      await ack();
      await respond({ response_type: 'ephemeral', text: 'pressed' });
      await client.views.open({
        trigger_id: (body as { trigger_id: string }).trigger_id,
        view: {
          type: 'modal',
          callback_id: 'form',
          title: { type: 'plain_text', text: 'Why?' },
          submit: { type: 'plain_text', text: 'Send' },
          blocks: [
            {
              type: 'input',
              block_id: 'b',
              label: { type: 'plain_text', text: 'Why' },
              element: { type: 'plain_text_input', action_id: 'a' },
            },
          ],
        },
      });
    });
    app.view('form', async ({ ack, view }) => {
      await ack();
      words = view.state.values['b']?.['a']?.value ?? '';
    });
    await app.start();
    const posted = await app.client.chat.postMessage({
      channel: general,
      text: 'choose',
      blocks: [
        {
          type: 'actions',
          elements: [{ type: 'button', text: { type: 'plain_text', text: 'Go' }, action_id: 'go' }],
        },
      ],
    });
    expect(() => fake.userPressesButton({ user: OWNER, messageTs: posted.ts!, actionId: 'nope' })).toThrow(
      /no button/,
    );
    fake.userPressesButton({ user: OWNER, messageTs: posted.ts!, actionId: 'go' });
    await fake.waitForMessage(
      (m) => m.ephemeralFor === OWNER && m.text === 'pressed' && m.via === 'response_url',
    );
    await fake.waitFor(() => fake.views.some((v) => v.type === 'modal'), 5_000, 'the form');
    const form = fake.views.find((v) => v.type === 'modal')!;
    fake.userSubmitsForm({ user: OWNER, viewId: form.id, value: 'because' });
    await fake.waitFor(() => words === 'because', 5_000, 'the words');
    await fake.waitFor(() => fake.views.find((v) => v.id === form.id)!.closed, 5_000, 'the form closed');
    // A trigger opens one form, once.
    await expect(app.client.views.open({ trigger_id: 'nope', view: form.view as never })).rejects.toThrow(
      /invalid_trigger_id/,
    );
  });

  it('a slash command: its ack answers the person alone', async () => {
    app.command('/agent-bridge', async ({ ack, command }) => {
      await ack({ response_type: 'ephemeral', text: `you said ${command.text}` });
    });
    await app.start();
    fake.userRunsCommand({ user: OWNER, channel: general, text: 'status' });
    const reply = await fake.waitForMessage((m) => m.via === 'ack');
    expect(reply).toMatchObject({ ephemeralFor: OWNER, text: 'you said status', channel: general });
  });

  it('files.uploadV2 lands in the channel; a person\u2019s file downloads only with the bot token', async () => {
    await app.start();
    await app.client.filesUploadV2({
      channel_id: general,
      file: Buffer.from('report'),
      filename: 'r.txt',
      initial_comment: 'here',
    });
    const shared = await fake.waitForMessage((m) => m.files.length === 1);
    expect(shared).toMatchObject({ text: 'here', fromBot: true });
    expect(shared.files[0]!.data?.toString()).toBe('report');
    const sent = fake.userSends({
      user: OWNER,
      channel: general,
      text: '',
      files: [{ name: 'a.txt', data: Buffer.from('abc') }],
    });
    const url = sent.files[0]!.urlPrivateDownload;
    expect((await fetch(url)).status).toBe(403);
    const withToken = await fetch(url, { headers: { authorization: `Bearer ${fake.token}` } });
    expect(await withToken.text()).toBe('abc');
    expect(fake.downloads.map((d) => d.authorized)).toEqual([false, true]);
  });

  it('429 with Retry-After: web-api waits and sends once; limits answer as Slack does', async () => {
    await app.start();
    fake.rateLimitNext(2, { method: 'chat.postMessage', retryAfterSeconds: 0.2 });
    await app.client.chat.postMessage({ channel: general, text: 'after the storm' });
    expect(fake.calls.filter((c) => c.method === 'chat.postMessage').map((c) => c.status)).toEqual([
      429, 429, 200,
    ]);
    expect(fake.messages.filter((m) => m.text === 'after the storm')).toHaveLength(1);
    await expect(app.client.chat.postMessage({ channel: general, text: 'x'.repeat(4_001) })).rejects.toThrow(
      /msg_too_long/,
    );
    await expect(
      app.client.chat.postMessage({
        channel: general,
        text: 't',
        blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'y'.repeat(3_001) } }],
      }),
    ).rejects.toThrow(/invalid_blocks/);
    await expect(app.client.chat.postMessage({ channel: 'C0NOWHERE', text: 'x' })).rejects.toThrow(
      /channel_not_found/,
    );
  });

  it('refresh_requested and a dropped socket: the client connects again with a new URL', async () => {
    const seen: string[] = [];
    app.message(async ({ message }) => void seen.push((message as { text?: string }).text ?? ''));
    await app.start();
    fake.requestRefresh();
    await fake.waitFor(
      () => fake.socketStats.connections === 2 && fake.socketStats.open === 1,
      10_000,
      'reconnected',
    );
    fake.dropSocket();
    await fake.waitFor(
      () => fake.socketStats.connections === 3 && fake.socketStats.open === 1,
      10_000,
      'reconnected again',
    );
    expect(fake.socketStats.opens).toBe(3);
    fake.userSends({ user: OWNER, channel: general, text: 'still here' });
    await fake.waitFor(() => seen.includes('still here'), 5_000, 'the message after reconnecting');
  });
});
