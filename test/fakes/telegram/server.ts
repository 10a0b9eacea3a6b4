// A fake Telegram Bot API on 127.0.0.1 for the real grammY client. See README.md in this folder.
import { listen, type Listening } from './http.js';
import type { World } from './world.js';
import { ChatStore } from './state.js';
import type {
  CallbackAnswer,
  ChatSpec,
  FakeCall,
  FakeMessage,
  FakeTelegramOptions,
  FaultSpec,
  OfflineMode,
  TgBotInfo,
  TgChat,
  TgUpdate,
  UserDocument,
  UserPress,
  UserText,
  UserClosesTopic,
} from './types.js';
import { UpdateQueue } from './updates.js';
import {
  userClosesTopic,
  userPressesButton,
  userSendsDocument,
  userSendsText,
  type SentByUser,
} from './users.js';

export type * from './types.js';
export { parseFormatted, commandEntities } from './entities.js';
export type { SentByUser } from './users.js';

export const DEFAULT_TOKEN = '123456789:TEST-token-for-the-fake-telegram-api';

function botInfoFor(token: string, username: string): TgBotInfo {
  const id = Number(token.split(':')[0]);
  if (!Number.isInteger(id) || id <= 0) throw new Error(`token must start with a numeric bot id: ${token}`);
  return {
    id,
    is_bot: true,
    first_name: 'Fake Bridge Bot',
    username,
    can_join_groups: true,
    can_read_all_group_messages: false,
    supports_inline_queries: false,
    can_connect_to_business: false,
    has_main_web_app: false,
    has_topics_enabled: false,
    allows_users_to_create_topics: false,
    can_manage_bots: false,
    supports_join_request_queries: false,
  };
}

export class FakeTelegram {
  readonly token: string;
  /** getMe's answer; pass as grammY's `botInfo` to skip the getMe call. */
  readonly botInfo: TgBotInfo;
  /** Every API call (and file download, as method `downloadFile`), in arrival order. */
  readonly calls: FakeCall[] = [];
  /** Every accepted answerCallbackQuery, in order. */
  readonly callbackAnswers: CallbackAnswer[] = [];
  private readonly world: World;
  private readonly faults = new Map<string, FaultSpec[]>();
  private readonly stalls = new Map<string, number[]>();
  private readonly waiters = new Set<(error: Error) => void>();
  private offlineMode: OfflineMode | undefined;
  private http: Listening | undefined;
  private closed = false;

  constructor(options: FakeTelegramOptions = {}) {
    this.token = options.token ?? DEFAULT_TOKEN;
    this.botInfo = botInfoFor(this.token, options.botUsername ?? 'fake_agent_bridge_bot');
    this.world = {
      store: new ChatStore(this.botInfo, options.strictChats ?? false),
      updates: new UpdateQueue(),
      callbackQueries: new Map(),
      callbackAnswers: this.callbackAnswers,
      commands: new Map(),
    };
    for (const chat of options.chats ?? []) this.world.store.addChat(chat);
  }

  /** `http://127.0.0.1:PORT`: grammY's `client.apiRoot`. */
  get apiRoot(): string {
    if (!this.http) throw new Error('the fake is not listening');
    return `http://127.0.0.1:${this.http.port}`;
  }

  /** Where a file from getFile downloads: `${apiRoot}/file/bot${token}/${filePath}`. */
  fileUrl(filePath: string): string {
    return `${this.apiRoot}/file/bot${this.token}/${filePath}`;
  }

  async start(): Promise<this> {
    this.http = await listen({
      token: this.token,
      world: this.world,
      offline: () => this.offlineMode,
      record: (call) => {
        this.calls.push(call);
        this.world.store.changed();
      },
      responded: () => this.world.store.changed(),
      takeFault: (method) => this.faults.get(method)?.shift(),
      takeStall: (method) => this.stalls.get(method)?.shift(),
    });
    return this;
  }

  // --- What the bot did

  /** Messages the bot sent (deleted ones included, flagged), in order; optionally of one chat. */
  messages(chatId?: number): FakeMessage[] {
    return this.world.store.all(chatId).filter((message) => message.fromBot);
  }

  /** Every message, the users' too, in order. */
  history(chatId?: number): FakeMessage[] {
    return this.world.store.all(chatId);
  }

  message(chatId: number, messageId: number): FakeMessage | undefined {
    return this.world.store.get(chatId, messageId);
  }

  /** The first bot message (existing or future, re-checked on every change incl. edits) that matches. */
  waitForMessage(predicate: (message: FakeMessage) => boolean, timeoutMs = 5_000): Promise<FakeMessage> {
    return this.waitUntil(
      'a matching message',
      () => this.messages().find(predicate),
      timeoutMs,
      () =>
        this.messages()
          .map(
            (m) =>
              `chat ${m.chatId} #${m.messageId}: ${JSON.stringify(m.text ?? m.caption ?? m.document?.file_name)}`,
          )
          .join('; '),
    );
  }

  /** The first call of `method` (existing or future) that matches; `status` is set once answered. */
  waitForCall(
    method: string,
    predicate: (call: FakeCall) => boolean = () => true,
    timeoutMs = 5_000,
  ): Promise<FakeCall> {
    return this.waitUntil(
      `a ${method} call`,
      () => this.calls.find((c) => c.method === method && predicate(c)),
      timeoutMs,
      () => this.calls.map((c) => `${c.method}→${c.status ?? 'pending'}`).join(', '),
    );
  }

  /** Updates injected but not yet confirmed by a getUpdates offset. */
  pendingUpdates(): TgUpdate[] {
    return this.world.updates.pending();
  }

  /** True while a long poll is waiting: the bot is up and idle. */
  isPolling(): boolean {
    return this.world.updates.isPolling();
  }

  // --- Simulated users and chats

  userSendsText(input: UserText): SentByUser {
    return userSendsText(this.world, input);
  }

  userClosesTopic(input: UserClosesTopic): SentByUser {
    return userClosesTopic(this.world, input);
  }

  userPressesButton(input: UserPress): { updateId: number; callbackQueryId: string } {
    return userPressesButton(this.world, input);
  }

  userSendsDocument(input: UserDocument): SentByUser & { fileId: string } {
    return userSendsDocument(this.world, input);
  }

  /** A group or supergroup (negative id); `isForum` for topics. */
  addChat(spec: ChatSpec): TgChat {
    return this.world.store.addChat(spec);
  }

  /** While blocked, sends to the chat fail with 403 "Forbidden: bot was blocked by the user". */
  setBlocked(chatId: number, blocked = true): void {
    this.world.store.setBlocked(chatId, blocked);
  }

  // --- Faults

  /** The next `times` (default 1) calls of `method` (or `downloadFile`) fail with this status. */
  failNext(method: string, fault: FaultSpec): void {
    const queue = this.faults.get(method) ?? [];
    for (let i = 0; i < (fault.times ?? 1); i += 1) queue.push(fault);
    this.faults.set(method, queue);
  }

  /** The next call of `method` is carried out at once but answered `ms` later. */
  stallNext(method: string, ms: number): void {
    const queue = this.stalls.get(method) ?? [];
    queue.push(ms);
    this.stalls.set(method, queue);
  }

  /**
   * Offline: open connections (pending long polls included) are cut, and new requests are reset
   * ('reset', a network error for the client) or answered by an nginx-style HTML 502 ('bad-gateway').
   */
  setOffline(offline: boolean, mode: OfflineMode = 'reset'): void {
    this.offlineMode = offline ? mode : undefined;
    if (offline) this.http?.dropConnections();
  }

  /** Ends pending long polls (with []), rejects pending waits and closes the server. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.world.updates.terminate();
    for (const reject of [...this.waiters]) reject(new Error('the fake Telegram server was closed'));
    await this.http?.close();
  }

  private waitUntil<T>(
    what: string,
    check: () => T | undefined,
    timeoutMs: number,
    sofar: () => string,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const cleanups: Array<() => void> = [];
      const finish = (error: Error | undefined, value?: T): void => {
        if (settled) return;
        settled = true;
        for (const cleanup of cleanups) cleanup();
        if (error) reject(error);
        else resolve(value as T);
      };
      const probe = (): void => {
        try {
          const value = check();
          if (value !== undefined) finish(undefined, value);
        } catch (error) {
          finish(error instanceof Error ? error : new Error(String(error)));
        }
      };
      probe();
      if (settled) return;
      const timer = setTimeout(() => {
        finish(
          new Error(`timed out after ${timeoutMs} ms waiting for ${what}; so far: ${sofar() || 'none'}`),
        );
      }, timeoutMs);
      const unsubscribe = this.world.store.onChange(probe);
      const onClose = (error: Error): void => finish(error);
      this.waiters.add(onClose);
      cleanups.push(
        () => clearTimeout(timer),
        unsubscribe,
        () => this.waiters.delete(onClose),
      );
    });
  }
}

export async function startFakeTelegram(options: FakeTelegramOptions = {}): Promise<FakeTelegram> {
  return new FakeTelegram(options).start();
}
