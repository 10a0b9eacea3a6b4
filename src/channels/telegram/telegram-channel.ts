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
/** The public Bot API serves files to bots up to this size (a local Bot API server allows more). */
const BOT_DOWNLOAD_LIMIT = 20 * 1024 * 1024;

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

  async start(onInbound: (event: InboundEvent) => void): Promise<void> {
    const { Bot } = await import('grammy');
    const { autoRetry } = await import('@grammyjs/auto-retry');
    const bot = new Bot(this.options.token, { client: { apiRoot: this.apiRoot } });
    // Network errors are ours to retry (with backoff, without blocking other sends); 429 and 5xx are retried here.
    bot.api.config.use(autoRetry({ maxRetryAttempts: 3, maxDelaySeconds: 60, rethrowHttpErrors: true }));
    try {
      await bot.init();
    } catch (error) {
      if ((error as { error_code?: number }).error_code === 401) {
        throw new TelegramAuthError(
          'telegram refused the bot token (401 Unauthorized): check channels.telegram.token',
        );
      }
      throw new Error(`telegram: cannot reach ${this.apiRoot}: ${(error as Error).message}`);
    }
    await bot.api.deleteWebhook().catch(() => undefined);
    await bot.api
      .setMyCommands([
        { command: 'sessions', description: 'list agent sessions' },
        { command: 'switch', description: 'choose the session plain messages go to' },
        { command: 'status', description: 'sessions and waiting prompts' },
        { command: 'approvals', description: 'prompts waiting for an answer' },
        { command: 'help', description: 'what this bot does' },
      ])
      .catch(() => undefined);
    this.installHandlers(bot, onInbound);
    this.bot = bot;
    this.polling = this.poll(bot);
  }

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
    if (this.apiRoot === TELEGRAM_API_ROOT && knownSize > BOT_DOWNLOAD_LIMIT) {
      throw new Error('Telegram lets bots download files of up to 20 MB');
    }
    const file = await bot.api.getFile(fileId);
    if ((file.file_size ?? 0) > maxBytes)
      throw new Error(`the file is larger than ${Math.round(maxBytes / 1024 / 1024)} MB`);
    return fetchCapped(`${this.apiRoot}/file/bot${this.options.token}/${file.file_path}`, maxBytes);
  }

  /**
   * Long polling with our own loop: backoff on errors and a reconnect signal when they clear. After an error
   * the next poll returns at once, so recovery is noticed without waiting out a long poll.
   */
  private async poll(bot: Bot): Promise<void> {
    let offset = 0;
    let troubled = false;
    const signal = this.abort.signal;
    while (!signal.aborted) {
      try {
        const updates = await bot.api.getUpdates(
          {
            offset,
            timeout: troubled ? 0 : POLL_TIMEOUT_SECONDS,
            allowed_updates: ['message', 'callback_query'],
          },
          signal as Parameters<typeof bot.api.getUpdates>[1],
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
        const delay = this.backoff.next();
        this.options.onError?.(
          `telegram: ${(error as Error).message.split('\n')[0]}; retrying in ${delay / 1000} s`,
        );
        await this.clock.sleep(delay);
      }
    }
  }
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
