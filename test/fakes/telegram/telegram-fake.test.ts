import { autoRetry } from '@grammyjs/auto-retry';
import { Bot, GrammyError, HttpError, InlineKeyboard, InputFile } from 'grammy';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../support/wait.js';
import { startFakeTelegram, type FakeTelegram } from './server.js';

const USER = 4242;

function botFor(fake: FakeTelegram, options: { timeoutSeconds?: number; token?: string } = {}): Bot {
  return new Bot(options.token ?? fake.token, {
    botInfo: fake.botInfo,
    client: {
      apiRoot: fake.apiRoot,
      ...(options.timeoutSeconds ? { timeoutSeconds: options.timeoutSeconds } : {}),
    },
  });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('fake Telegram Bot API with the real grammY client', () => {
  let fake: FakeTelegram;
  beforeEach(async () => {
    fake = await startFakeTelegram();
  });
  afterEach(async () => {
    await fake.close();
  });

  it('answers getMe through bot.init() and refuses a wrong token with 401', async () => {
    const bot = new Bot(fake.token, { client: { apiRoot: fake.apiRoot } });
    await bot.init();
    expect(bot.botInfo.username).toBe('fake_agent_bridge_bot');
    expect(bot.botInfo.id).toBe(123456789);

    const error = await rejection(botFor(fake, { token: '1:wrong' }).api.getMe());
    expect(error).toBeInstanceOf(GrammyError);
    expect((error as GrammyError).error_code).toBe(401);
    expect((error as GrammyError).description).toBe('Unauthorized');
  });

  it('sends and edits a message with an inline keyboard; an unchanged edit is a GrammyError 400', async () => {
    const bot = botFor(fake);
    const keyboard = new InlineKeyboard().text('Approve', 'approve:1').text('Deny', 'deny:1');
    const sent = await bot.api.sendMessage(USER, 'Run `rm -rf build`?', { reply_markup: keyboard });
    expect(sent.chat).toMatchObject({ id: USER, type: 'private' });
    expect(sent.reply_markup?.inline_keyboard[0]?.map((b) => b.text)).toEqual(['Approve', 'Deny']);
    const [stored] = fake.messages(USER);
    expect(stored).toMatchObject({ messageId: sent.message_id, text: 'Run `rm -rf build`?', deleted: false });

    await bot.api.editMessageText(USER, sent.message_id, 'Approved', { reply_markup: keyboard });
    const error = await rejection(
      bot.api.editMessageText(USER, sent.message_id, 'Approved', { reply_markup: keyboard }),
    );
    expect(error).toBeInstanceOf(GrammyError);
    expect((error as GrammyError).error_code).toBe(400);
    expect((error as GrammyError).description).toMatch(/^Bad Request: message is not modified: /);

    // Telegram drops the keyboard when an edit leaves out reply_markup.
    const edited = await bot.api.editMessageText(USER, sent.message_id, 'Approved');
    expect(edited).not.toHaveProperty('reply_markup');
    expect(stored?.edits.map((edit) => edit.reply_markup !== undefined)).toEqual([true, false]);
    await bot.api.editMessageReplyMarkup(USER, sent.message_id, { reply_markup: keyboard });
    expect(stored?.reply_markup?.inline_keyboard?.[0]?.[0]?.callback_data).toBe('approve:1');

    const missing = await rejection(bot.api.editMessageText(USER, 999, 'x'));
    expect((missing as GrammyError).description).toBe('Bad Request: message to edit not found');
  });

  it('rejects callback_data outside 1..64 bytes (bytes, not characters)', async () => {
    const bot = botFor(fake);
    await bot.api.sendMessage(USER, 'ok', { reply_markup: new InlineKeyboard().text('x', 'a'.repeat(64)) });
    for (const data of ['a'.repeat(65), 'é'.repeat(33), '']) {
      const error = await rejection(
        bot.api.sendMessage(USER, 'no', { reply_markup: new InlineKeyboard().text('x', data) }),
      );
      expect((error as GrammyError).description).toBe('Bad Request: BUTTON_DATA_INVALID');
    }
    expect(fake.messages().map((m) => m.text)).toEqual(['ok']);
  });

  it('enforces the text limit, parse modes and replies', async () => {
    const bot = botFor(fake);
    await bot.api.sendMessage(USER, 'x'.repeat(4096));
    const long = await rejection(bot.api.sendMessage(USER, 'x'.repeat(4097)));
    expect((long as GrammyError).description).toBe('Bad Request: message is too long');

    const html = await bot.api.sendMessage(USER, '<b>bold</b> &amp; <code>a&lt;b</code>', {
      parse_mode: 'HTML',
    });
    expect(html.text).toBe('bold & a<b');
    expect(html.entities?.map((e) => [e.type, e.offset, e.length])).toEqual([
      ['bold', 0, 4],
      ['code', 7, 3],
    ]);
    const badHtml = await rejection(bot.api.sendMessage(USER, 'if a < b', { parse_mode: 'HTML' }));
    expect((badHtml as GrammyError).description).toMatch(/^Bad Request: can't parse entities: /);
    const badV2 = await rejection(bot.api.sendMessage(USER, 'Done.', { parse_mode: 'MarkdownV2' }));
    expect((badV2 as GrammyError).description).toMatch(/Character '\.' is reserved/);
    const v2 = await bot.api.sendMessage(USER, '*Done*\\.', { parse_mode: 'MarkdownV2' });
    expect(v2.text).toBe('Done.');

    const reply = await bot.api.sendMessage(USER, 're', {
      reply_parameters: { message_id: html.message_id },
    });
    expect(reply.reply_to_message?.message_id).toBe(html.message_id);
    const orphan = await rejection(
      bot.api.sendMessage(USER, 're', { reply_parameters: { message_id: 999 } }),
    );
    expect((orphan as GrammyError).description).toBe('Bad Request: message to be replied not found');
  });

  it('uploads a document from a Buffer (multipart, attach://) and serves it back through getFile', async () => {
    const bot = botFor(fake);
    const bytes = Buffer.from('line one\nline two\n\u00e9\u0000binary');
    const sent = await bot.api.sendDocument(USER, new InputFile(bytes, 'build log; v2.txt'), {
      caption: 'the <b>log</b>',
      parse_mode: 'HTML',
      reply_markup: new InlineKeyboard().text('Again', 'again'),
    });
    expect(sent.document).toMatchObject({ file_name: 'build log; v2.txt', mime_type: 'text/plain' });
    expect(sent.caption).toBe('the log');
    const call = fake.calls.find((c) => c.method === 'sendDocument');
    expect(String(call?.params.document)).toMatch(/^attach:\/\//);
    const stored = fake.messages(USER)[0];
    expect(stored?.document?.bytes.equals(bytes)).toBe(true);

    const file = await bot.api.getFile(sent.document?.file_id ?? '');
    const response = await fetch(`${fake.apiRoot}/file/bot${fake.token}/${file.file_path}`);
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('lets a simulated user upload a file the bot downloads; over 20 MB getFile says too big', async () => {
    const bot = botFor(fake);
    const { fileId } = fake.userSendsDocument({ userId: USER, fileName: 'notes.md', bytes: '# hi\n' });
    const file = await bot.api.getFile(fileId);
    expect(file.file_size).toBe(5);
    expect(await (await fetch(fake.fileUrl(file.file_path ?? ''))).text()).toBe('# hi\n');

    const big = fake.userSendsDocument({
      userId: USER,
      fileName: 'big.bin',
      bytes: Buffer.alloc(51 * 1024 * 1024),
    });
    const error = await rejection(bot.api.getFile(big.fileId));
    expect((error as GrammyError).description).toBe('Bad Request: file is too big');
    expect(fake.pendingUpdates().map((u) => u.message?.document?.file_size)).toEqual([5, 51 * 1024 * 1024]);
  });

  it('long-polls with bot.start(): text, a command, a button press, each update once; stop() returns', async () => {
    const bot = botFor(fake);
    const seen: number[] = [];
    bot.use(async (ctx, next) => {
      seen.push(ctx.update.update_id);
      await next();
    });
    bot.command('start', (ctx) => ctx.reply('Welcome'));
    bot.on('message:text', (ctx) =>
      ctx.reply(`echo: ${ctx.message.text}`, {
        reply_markup: new InlineKeyboard().text('Yes', 'answer:yes'),
      }),
    );
    bot.on('callback_query:data', async (ctx) => {
      await ctx.answerCallbackQuery({ text: `got ${ctx.callbackQuery.data}` });
      await ctx.editMessageText(`chosen: ${ctx.callbackQuery.data}`);
    });
    const running = bot.start({ timeout: 30 });

    fake.userSendsText({ userId: USER, text: '/start' });
    await fake.waitForMessage((m) => m.text === 'Welcome');
    fake.userSendsText({ userId: USER, text: 'hello' });
    const echo = await fake.waitForMessage((m) => m.text === 'echo: hello');
    const { callbackQueryId } = fake.userPressesButton({
      userId: USER,
      messageId: echo.messageId,
      data: 'answer:yes',
    });
    await fake.waitForMessage((m) => m.messageId === echo.messageId && m.text === 'chosen: answer:yes');
    expect(fake.callbackAnswers).toMatchObject([{ callbackQueryId, text: 'got answer:yes' }]);
    expect(() =>
      fake.userPressesButton({ userId: USER, messageId: echo.messageId, data: 'answer:yes' }),
    ).toThrow(/shows no button/);

    // The next long poll confirms everything handled; the bot is then idle in a poll.
    await waitFor(
      'the handled updates to be confirmed',
      () => fake.pendingUpdates().length === 0 && fake.isPolling(),
    );
    expect(fake.pendingUpdates()).toEqual([]);
    expect(seen).toHaveLength(3);
    expect(new Set(seen).size).toBe(3);

    await bot.stop();
    await running;
    expect(fake.isPolling()).toBe(false);
  });

  it('replies inside a forum topic through ctx.reply', async () => {
    fake.addChat({ id: -100777, title: 'Agents', isForum: true });
    const bot = botFor(fake);
    bot.on('message:text', (ctx) => ctx.reply('in topic'));
    const running = bot.start({ timeout: 30 });
    fake.userSendsText({ chatId: -100777, userId: USER, text: 'status?', threadId: 12 });
    const reply = await fake.waitForMessage((m) => m.text === 'in topic');
    expect(reply).toMatchObject({ chatId: -100777, threadId: 12 });
    await bot.stop();
    await running;
  });

  it('getUpdates: offset confirms, limit caps, an injected update wakes a long poll, timeout gives []', async () => {
    const bot = botFor(fake);
    const first = fake.userSendsText({ userId: USER, text: 'one' });
    fake.userSendsText({ userId: USER, text: 'two' });
    expect((await bot.api.getUpdates({ limit: 1 })).map((u) => u.update_id)).toEqual([first.updateId]);
    expect(await bot.api.getUpdates()).toHaveLength(2);
    expect((await bot.api.getUpdates({ offset: first.updateId + 1 })).map((u) => u.message?.text)).toEqual([
      'two',
    ]);
    expect(await bot.api.getUpdates({ offset: first.updateId + 2 })).toEqual([]);
    expect(fake.pendingUpdates()).toEqual([]);

    expect(await bot.api.getUpdates({ timeout: 1 })).toEqual([]);
    const polling = bot.api.getUpdates({ timeout: 30 });
    await waitFor('the long poll to wait', () => fake.isPolling());
    const third = fake.userSendsText({ userId: USER, text: 'three' });
    expect((await polling).map((u) => u.update_id)).toEqual([third.updateId]);
  });

  it('answers 429 with parameters.retry_after, which autoRetry honours', async () => {
    const plain = botFor(fake);
    fake.failNext('sendMessage', { status: 429, retryAfter: 1 });
    const error = await rejection(plain.api.sendMessage(USER, 'hi'));
    expect(error).toBeInstanceOf(GrammyError);
    expect((error as GrammyError).error_code).toBe(429);
    expect((error as GrammyError).parameters.retry_after).toBe(1);

    const bot = botFor(fake);
    bot.api.config.use(autoRetry({ maxRetryAttempts: 1, maxDelaySeconds: 5 }));
    fake.failNext('sendMessage', { status: 429, retryAfter: 1 });
    const sent = await bot.api.sendMessage(USER, 'after the wait');
    expect(sent.text).toBe('after the wait');
    const statuses = fake.calls.filter((c) => c.method === 'sendMessage').map((c) => c.status);
    expect(statuses).toEqual([429, 429, 200]);

    fake.failNext('sendMessage', { status: 500 });
    expect(((await rejection(plain.api.sendMessage(USER, 'x'))) as GrammyError).error_code).toBe(500);
  });

  it('goes offline (network errors) and comes back; a stalled answer still delivers the message', async () => {
    const bot = botFor(fake, { timeoutSeconds: 1 });
    fake.setOffline(true);
    expect(await rejection(bot.api.getMe())).toBeInstanceOf(HttpError);
    fake.setOffline(true, 'bad-gateway');
    expect(await rejection(bot.api.getMe())).toBeInstanceOf(HttpError);
    fake.setOffline(false);
    expect((await bot.api.getMe()).is_bot).toBe(true);

    fake.stallNext('sendMessage', 3_000);
    const timedOut = await rejection(bot.api.sendMessage(USER, 'slow'));
    expect(timedOut).toBeInstanceOf(HttpError);
    expect(fake.messages(USER).map((m) => m.text)).toEqual(['slow']);
  });

  it('covers the small methods: commands, chat action, delete, callback answers', async () => {
    const bot = botFor(fake);
    await bot.api.deleteWebhook({ drop_pending_updates: true });
    await bot.api.setMyCommands([{ command: 'status', description: 'Show sessions' }]);
    expect(await bot.api.getMyCommands()).toEqual([{ command: 'status', description: 'Show sessions' }]);
    const badCommand = await rejection(bot.api.setMyCommands([{ command: 'Bad-One', description: 'x' }]));
    expect((badCommand as GrammyError).description).toBe('Bad Request: BOT_COMMAND_INVALID');
    expect(await bot.api.sendChatAction(USER, 'typing')).toBe(true);

    const sent = await bot.api.sendMessage(USER, 'bye');
    expect(await bot.api.deleteMessage(USER, sent.message_id)).toBe(true);
    expect(fake.messages(USER)[0]?.deleted).toBe(true);
    const again = await rejection(bot.api.deleteMessage(USER, sent.message_id));
    expect((again as GrammyError).description).toBe('Bad Request: message to delete not found');
    const stale = await rejection(bot.api.answerCallbackQuery('nope'));
    expect((stale as GrammyError).description).toMatch(/query is too old/);
  });
});
