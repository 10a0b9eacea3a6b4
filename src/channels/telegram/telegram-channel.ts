import type { Bot, Context } from 'grammy';
import { Backoff } from '../../core/backoff.js';
import { systemClock, type Clock } from '../../core/clock.js';
import { KeyedSpacer } from '../../core/window-limiter.js';
import type {
  Channel,
  ChatTarget,
  InboundEvent,
  MessageRef,
  PromptOutcome,
  PromptView,
} from '../contract.js';
import { fetchCapped } from '../download.js';
import { outcomeText, promptKeyboard, promptText } from './prompt-message.js';

export const TELEGRAM_API_ROOT = 'https://api.telegram.org';
/** Telegram allows about one message a second per chat. */
const SEND_INTERVAL_MS = 1_000;
const POLL_TIMEOUT_SECONDS = 30;
/**
 * The Bot API serves files to bots up to this size, the public one and a self-hosted one alike (one started with
 * `--local` has no limit, but gives local paths, which are not downloaded over HTTP).
 */
const BOT_DOWNLOAD_LIMIT = 20 * 1024 * 1024;
/**
 * How long start() waits for Telegram's first answer to getMe: a refused token fails the start at once; an API
 * that cannot be reached, or does not answer in time, is tried again in the background.
 */
export const FIRST_ANSWER_MS = 10_000;
const COMMANDS = [
  { command: 'sessions', description: 'list agent sessions' },
  { command: 'switch', description: 'choose the session plain messages go to' },
  { command: 'status', description: 'sessions and waiting prompts' },
  { command: 'approvals', description: 'prompts waiting for an answer' },
  { command: 'help', description: 'what this bot does' },
];

/** grammY's own AbortSignal type (its shim's), which Node's signals satisfy. */
type ApiSignal = Parameters<Bot['api']['getMe']>[0];

export interface TelegramOptions {
  token: string;
  /** A self-hosted Bot API server (or a test's fake); default the public one. */
  apiRoot?: string;
  clock?: Clock;
  /** Told when the connection came back after errors, so prompts can be re-delivered. */
  onReconnect?: () => void;
  /** Told about connection trouble (one line, no secrets). */
  onError?: (message: string) => void;
}

export class TelegramAuthError extends Error {
  override name = 'TelegramAuthError';
}

/**
 * Telegram through grammY: long polling (no inbound port), inline keyboards, documents. Sends are spaced one
 * a second per chat and 429s are retried after Telegram's retry_after; network errors back off 1 s doubling
 * to 60 s, then the channel reconnects by itself.
 */
export class TelegramChannel implements Channel {
  readonly name = 'telegram';
  private bot: Bot | null = null;
  private readonly clock: Clock;
  private readonly spacer: KeyedSpacer;
  private readonly backoff = new Backoff(1_000, 60_000);
  private abort = new AbortController();
  private polling: Promise<void> | null = null;

  constructor(private readonly options: TelegramOptions) {
    this.clock = options.clock ?? systemClock;
    this.spacer = new KeyedSpacer(SEND_INTERVAL_MS, this.clock);
  }

  get apiRoot(): string {
    return this.options.apiRoot ?? TELEGRAM_API_ROOT;
  }

  /**
   * Resolves once Telegram knows the bot (or has not answered within FIRST_ANSWER_MS, or cannot be reached:
   * then the channel keeps trying in the background, 1 s doubling to 60 s, one line per failure). Rejects at
   * once when Telegram refuses the token. Polling starts as soon as getMe succeeds.
   */
  async start(onInbound: (event: InboundEvent) => void): Promise<void> {
    const { Bot } = await import('grammy');
    const { autoRetry } = await import('@grammyjs/auto-retry');
    const bot = new Bot(this.options.token, { client: { apiRoot: this.apiRoot } });
    // Network errors are ours to retry (with backoff, without blocking other sends); 429 and 5xx are retried here.
    bot.api.config.use(autoRetry({ maxRetryAttempts: 3, maxDelaySeconds: 60, rethrowHttpErrors: true }));
    this.installHandlers(bot, onInbound);
    this.backoff.reset();
    this.bot = bot;
    let settle!: (refusal: Error | null) => void;
    const firstAnswer = new Promise<Error | null>((resolve) => (settle = resolve));
    let waiting = true;
    // True for the first outcome only, while start() still waits for it.
    const answered = (refusal: Error | null): boolean => {
      const first = waiting;
      waiting = false;
      settle(refusal);
      return first;
    };
    const timer = this.clock.after(FIRST_ANSWER_MS, () => answered(null));
    this.polling = this.run(bot, this.abort.signal, answered).finally(() => answered(null));
    const refusal = await firstAnswer;
    timer.cancel();
    if (refusal) {
      await this.stop();
      throw refusal;
    }
  }

  /** Ends polling and any retrying at once (a request under way is aborted). */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.polling?.catch(() => undefined);
    this.polling = null;
    this.bot = null;
    this.abort = new AbortController();
  }

  sendText(target: ChatTarget, text: string): Promise<MessageRef> {
    return this.send(target, (bot) =>
      bot.api.sendMessage(target.chatId, text.slice(0, 4096), threadOf(target)),
    );
  }

  sendFile(target: ChatTarget, fileName: string, data: Buffer, caption?: string): Promise<MessageRef> {
    return this.send(target, async (bot) => {
      const { InputFile } = await import('grammy');
      return bot.api.sendDocument(target.chatId, new InputFile(data, fileName), {
        ...threadOf(target),
        ...(caption ? { caption: caption.slice(0, 1024) } : {}),
      });
    });
  }

  sendPrompt(target: ChatTarget, prompt: PromptView): Promise<MessageRef> {
    return this.send(target, (bot) =>
      bot.api.sendMessage(target.chatId, promptText(prompt, this.clock.now()), {
        ...threadOf(target),
        parse_mode: 'HTML',
        reply_markup: { inline_keyboard: promptKeyboard(prompt) },
      }),
    );
  }

  async showOutcome(ref: MessageRef, prompt: PromptView, outcome: PromptOutcome): Promise<void> {
    const bot = this.requireBot();
    await this.spacer.run(ref.chatId, () =>
      bot.api
        .editMessageText(ref.chatId, Number(ref.messageId), outcomeText(prompt, outcome, this.clock.now()), {
          parse_mode: 'HTML',
          reply_markup: { inline_keyboard: [] },
        })
        .catch(ignoreNotModified),
    );
  }

  async editText(ref: MessageRef, text: string): Promise<void> {
    const bot = this.requireBot();
    await this.spacer.run(ref.chatId, () =>
      bot.api
        .editMessageText(ref.chatId, Number(ref.messageId), text.slice(0, 4096))
        .catch(ignoreNotModified),
    );
  }

  private async send(
    target: ChatTarget,
    work: (bot: Bot) => Promise<{ message_id: number }>,
  ): Promise<MessageRef> {
    const bot = this.requireBot();
    const message = await this.spacer.run(target.chatId, () => work(bot));
    return { ...target, messageId: String(message.message_id) };
  }

  private requireBot(): Bot {
    if (!this.bot) throw new Error('telegram channel is not started');
    return this.bot;
  }

  private installHandlers(bot: Bot, onInbound: (event: InboundEvent) => void): void {
    bot.on('callback_query:data', (ctx) => {
      const message = ctx.callbackQuery.message;
      if (!message) return;
      onInbound({
        type: 'button',
        target: targetOf(ctx),
        from: userOf(ctx),
        data: ctx.callbackQuery.data,
        message: { ...targetOf(ctx), messageId: String(message.message_id) },
        acknowledge: async (text) =>
          void (await ctx
            .answerCallbackQuery(text ? { text: text.slice(0, 200) } : {})
            .catch(() => undefined)),
      });
    });
    bot.on('message:text', (ctx) => {
      const reply = ctx.message.reply_to_message;
      onInbound({
        type: 'text',
        target: targetOf(ctx),
        from: userOf(ctx),
        text: ctx.message.text,
        messageId: String(ctx.message.message_id),
        ...(reply ? { replyTo: { ...targetOf(ctx), messageId: String(reply.message_id) } } : {}),
      });
    });
    // A closed forum topic ends its thread's session, as an archived Discord thread does.
    bot.on('message:forum_topic_closed', (ctx) => {
      const target = targetOf(ctx);
      if (target.threadId)
        onInbound({
          type: 'thread_closed',
          target: { ...target, threadId: target.threadId },
          reason: 'archived',
        });
    });
    bot.on('message:document', (ctx) => {
      const document = ctx.message.document;
      onInbound({
        type: 'files',
        target: targetOf(ctx),
        from: userOf(ctx),
        files: [
          {
            fileName: document.file_name ?? `file-${document.file_unique_id}`,
            size: document.file_size ?? 0,
            download: (maxBytes) => this.download(document.file_id, document.file_size ?? 0, maxBytes),
          },
        ],
        ...(ctx.message.caption ? { caption: ctx.message.caption } : {}),
      });
    });
  }

  /** Downloads a file a person sent, refusing more than `maxBytes` and giving up after 30 s. */
  private async download(fileId: string, knownSize: number, maxBytes: number): Promise<Buffer> {
    const bot = this.requireBot();
    // The update says how large the file is: getFile would only refuse it, in Telegram's words.
    if (knownSize > BOT_DOWNLOAD_LIMIT) throw tooBigToDownload(knownSize);
    const file = await bot.api.getFile(fileId).catch((error: unknown) => {
      if (/file is too big/i.test((error as Error).message)) throw tooBigToDownload(knownSize);
      throw error;
    });
    if ((file.file_size ?? 0) > maxBytes)
      throw new Error(`the file is larger than ${Math.round(maxBytes / 1024 / 1024)} MB`);
    return fetchCapped(`${this.apiRoot}/file/bot${this.options.token}/${file.file_path}`, maxBytes);
  }

  /**
   * Finds out who the bot is (getMe, retried with backoff while Telegram cannot be reached), prepares it, then
   * polls. `answered` learns the first outcome: null, or the error a refused token fails the start with.
   */
  private async run(
    bot: Bot,
    signal: AbortSignal,
    answered: (refusal: Error | null) => boolean,
  ): Promise<void> {
    let troubled = false;
    while (!signal.aborted && !bot.isInited()) {
      try {
        bot.botInfo = await bot.api.getMe(signal as ApiSignal);
        answered(null);
      } catch (error) {
        if (signal.aborted) break;
        const refusal = tokenRefusal(error, this.apiRoot);
        if (refusal) {
          // Refused after start() stopped waiting (a slow first answer): said, and the channel stays down.
          if (!answered(refusal)) this.options.onError?.(`${refusal.message}; the channel stopped`);
          return;
        }
        troubled = true;
        await this.retryLater(`cannot reach ${this.apiRoot}`, error, signal, () => answered(null));
      }
    }
    answered(null);
    if (signal.aborted) return;
    await bot.api.deleteWebhook({}, signal as ApiSignal).catch(() => undefined);
    if (signal.aborted) return;
    await bot.api.setMyCommands(COMMANDS, {}, signal as ApiSignal).catch(() => undefined);
    await this.poll(bot, signal, troubled);
  }

  /** One line about a failure (never a stack, never the token), then the next backoff delay (cut by stop()). */
  private async retryLater(
    what: string,
    error: unknown,
    signal: AbortSignal,
    said: () => unknown = () => undefined,
  ): Promise<void> {
    const delay = this.backoff.next();
    this.options.onError?.(`telegram: ${what}: ${this.describe(error)}; retrying in ${delay / 1000} s`);
    said();
    await sleepUnlessAborted(this.clock, delay, signal);
  }

  private describe(error: unknown): string {
    const cause = (error as { error?: { code?: unknown } }).error;
    const code = typeof cause?.code === 'string' ? ` (${cause.code})` : '';
    const line = `${String((error as Error)?.message ?? error).split('\n')[0]}${code}`;
    return line.split(this.options.token).join('<token>');
  }

  /**
   * Long polling with our own loop: backoff on errors and a reconnect signal when they clear. After an error
   * the next poll returns at once, so recovery is noticed without waiting out a long poll.
   */
  private async poll(bot: Bot, signal: AbortSignal, troubledAtFirst: boolean): Promise<void> {
    let offset = 0;
    let troubled = troubledAtFirst;
    while (!signal.aborted) {
      try {
        const updates = await bot.api.getUpdates(
          {
            offset,
            timeout: troubled ? 0 : POLL_TIMEOUT_SECONDS,
            allowed_updates: ['message', 'callback_query'],
          },
          signal as ApiSignal,
        );
        if (troubled) {
          troubled = false;
          this.options.onReconnect?.();
        }
        this.backoff.reset();
        for (const update of updates) {
          offset = update.update_id + 1;
          await bot
            .handleUpdate(update)
            .catch((error: unknown) =>
              this.options.onError?.(`telegram: handler failed: ${(error as Error).message}`),
            );
        }
      } catch (error) {
        if (signal.aborted) break;
        if ((error as { error_code?: number }).error_code === 401) {
          this.options.onError?.('telegram refused the bot token (401): polling stopped');
          break;
        }
        troubled = true;
        await this.retryLater('polling failed', error, signal);
      }
    }
  }
}

/** The error a start fails with when Telegram will never take this token; null for what may pass. */
function tokenRefusal(error: unknown, apiRoot: string): Error | null {
  const code = (error as { error_code?: number }).error_code;
  if (code === 401)
    return new TelegramAuthError(
      'telegram refused the bot token (401 Unauthorized): check channels.telegram.token',
    );
  // Telegram answers 404 to a token that is not one at all (and so does a wrong api_root).
  if (code === 404)
    return new TelegramAuthError(
      `telegram: ${apiRoot} does not know this bot token (404 Not Found): check channels.telegram.token and api_root`,
    );
  return null;
}

function tooBigToDownload(size: number): Error {
  const megabytes = Math.round((size / 1024 / 1024) * 10) / 10;
  return new Error(
    `${megabytes ? `${megabytes} MB is ` : 'it is '}over Telegram's 20 MB download limit for bots`,
  );
}

/** Resolves after `ms` on `clock`, or at once when `signal` aborts. */
function sleepUnlessAborted(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    const timer = clock.after(ms, done);
    const onAbort = (): void => {
      timer.cancel();
      done();
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function targetOf(ctx: Context): ChatTarget {
  const chatId = String(ctx.chat?.id ?? ctx.callbackQuery?.message?.chat.id ?? '');
  // Only forum topics are threads: in other groups message_thread_id marks a chain of replies.
  const message = ctx.message ?? ctx.callbackQuery?.message;
  const thread =
    message && 'is_topic_message' in message && message.is_topic_message
      ? message.message_thread_id
      : undefined;
  return thread !== undefined ? { chatId, threadId: String(thread) } : { chatId };
}

function userOf(ctx: Context): { id: string; name: string } {
  const from = ctx.from;
  return {
    id: String(from?.id ?? ''),
    name: from?.username ? `@${from.username}` : (from?.first_name ?? 'unknown'),
  };
}

function threadOf(target: ChatTarget): { message_thread_id?: number } {
  return target.threadId ? { message_thread_id: Number(target.threadId) } : {};
}

function ignoreNotModified(error: unknown): void {
  if (/message is not modified/.test((error as Error).message)) return;
  throw error;
}
