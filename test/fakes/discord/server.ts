// A fake Discord (REST API v10 + gateway) on 127.0.0.1 for the real discord.js client. See README.md here.
import { ChangeWaiters } from '../change-waiters.js';
import { Gateway } from './gateway.js';
import { listen, type Fault, type Listening } from './http.js';
import { channelWire } from './serialize.js';
import type {
  ButtonPressSpec,
  ChannelSpec,
  FakeCall,
  FakeDiscordChannel,
  FakeDiscordMessage,
  FakeDiscordOptions,
  GatewayStats,
  InteractionResponse,
  Json,
  ModalSubmitSpec,
  RateLimitSpec,
  ThreadSpec,
  UserSendSpec,
} from './types.js';
import { userPressesButton, userSends, userSubmitsModal } from './users.js';
import { BOT_ID, DEFAULT_USER_ID, World } from './world.js';

export type * from './types.js';
export { BOT_ID, DEFAULT_USER_ID } from './world.js';

export const DEFAULT_TOKEN = `${Buffer.from(BOT_ID).toString('base64')}.GfAkE0.fake-discord-bot-token-for-tests-only`;

const matches = (route: RegExp | undefined, method: string, path: string): boolean => {
  if (!route) return true;
  route.lastIndex = 0;
  if (route.test(path)) return true;
  route.lastIndex = 0;
  return route.test(`${method} ${path}`);
};

export class FakeDiscord {
  readonly token: string;
  readonly botUser: { id: string; username: string };
  readonly guildId: string;
  /** Every message in any channel (the bot's and the users'), in order; live objects. */
  readonly messages: FakeDiscordMessage[];
  /** Every accepted interaction callback, in order. */
  readonly interactionResponses: InteractionResponse[];
  /** Every HTTP request (REST and attachment downloads), with the status it got. */
  readonly calls: FakeCall[] = [];
  /** Attachment URLs fetched, in order. */
  readonly downloads: string[] = [];
  private readonly world: World;
  private readonly gateway: Gateway;
  private readonly faults: Fault[] = [];
  private readonly waiters = new ChangeWaiters(
    (listener) => this.world.onChange(listener),
    () => this.summary(),
  );
  private http: Listening | undefined;
  private closed = false;

  constructor(options: FakeDiscordOptions = {}) {
    this.token = options.token ?? DEFAULT_TOKEN;
    this.world = new World(options);
    this.botUser = { id: this.world.bot.id, username: this.world.bot.username };
    this.guildId = this.world.guild.id;
    this.messages = this.world.messages;
    this.interactionResponses = this.world.interactionResponses;
    this.gateway = new Gateway(this.token, this.world);
    this.world.dispatch = (event, data) => this.gateway.dispatch(event, data);
    for (const spec of options.channels ?? [{ name: 'general' }]) this.world.addChannel(spec);
  }

  async start(): Promise<this> {
    this.http = await listen({
      token: this.token,
      world: this.world,
      record: (call) => {
        this.calls.push(call);
        this.world.changed();
      },
      takeFault: (method, path) => {
        const at = this.faults.findIndex((fault) => matches(fault.route, method, path));
        return at < 0 ? undefined : this.faults.splice(at, 1)[0];
      },
      downloaded: (url) => this.downloads.push(url),
      upgrade: (req, socket, head) => this.gateway.upgrade(req, socket, head),
    });
    this.world.baseUrl = `http://127.0.0.1:${this.http.port}`;
    return this;
  }

  /** `http://127.0.0.1:PORT/api`: discord.js's `rest.api` (it appends `/v10`). */
  get restApi(): string {
    return `${this.world.baseUrl}/api`;
  }

  get gatewayStats(): GatewayStats {
    return this.gateway.stats;
  }

  /** A client is connected and past READY (or RESUMED). */
  isReady(): boolean {
    return this.gateway.isReady();
  }

  // --- The guild

  /** A guild text channel (or a DM channel with `type: 'dm'`); CHANNEL_CREATE for guild channels. */
  addChannel(spec: { id?: string; name: string; type?: ChannelSpec['type'] }): string {
    const channel = this.world.addChannel(spec);
    if (channel.type === 0) this.world.dispatch('CHANNEL_CREATE', channelWire(this.world, channel));
    return channel.id;
  }

  /** A thread started by a user (default owner `DEFAULT_USER_ID`); THREAD_CREATE with `newly_created`. */
  createThread(spec: ThreadSpec): string {
    const owner = this.world.userFor(spec.ownerId ?? DEFAULT_USER_ID);
    const thread = this.world.addThread(spec, owner.id);
    this.world.dispatch('THREAD_CREATE', { ...channelWire(this.world, thread), newly_created: true });
    return thread.id;
  }

  archiveThread(threadId: string, options: { locked?: boolean } = {}): void {
    const thread = this.thread(threadId);
    thread.archived = true;
    thread.archivedAt = Date.now();
    if (options.locked !== undefined) thread.locked = options.locked;
    this.world.changed();
    this.world.dispatch('THREAD_UPDATE', channelWire(this.world, thread));
  }

  deleteThread(threadId: string): void {
    const thread = this.thread(threadId);
    thread.deleted = true;
    this.world.changed();
    this.world.dispatch('THREAD_DELETE', {
      id: thread.id,
      guild_id: thread.guildId,
      parent_id: thread.parentId,
      type: thread.type,
    });
  }

  /** A channel or thread as the fake holds it now (deleted ones too). */
  channel(id: string): FakeDiscordChannel | undefined {
    return this.world.channels.get(id);
  }

  message(id: string): FakeDiscordMessage | undefined {
    return this.world.message(id);
  }

  // --- Simulated users

  userSends(spec: UserSendSpec): FakeDiscordMessage {
    return userSends(this.world, spec);
  }

  /** INTERACTION_CREATE type 3 / component_type 2; throws unless the message shows that enabled button. */
  userPressesButton(spec: ButtonPressSpec): string {
    return userPressesButton(this.world, spec);
  }

  /** INTERACTION_CREATE type 5; throws unless the bot showed a modal with that custom_id. */
  userSubmitsModal(spec: ModalSubmitSpec): string {
    return userSubmitsModal(this.world, spec);
  }

  /** Any dispatch, as given, to every session (no intent filtering). */
  sendRawDispatch(eventName: string, data: unknown): void {
    this.gateway.dispatch(eventName, data as Json, true);
  }

  // --- Faults

  /** The next `count` matching REST calls get 429 with Retry-After and X-RateLimit-* headers. */
  rateLimitNext(count: number, options: RateLimitSpec = {}): void {
    for (let i = 0; i < count; i += 1)
      this.faults.push({
        kind: 'rate-limit',
        retryAfterSeconds: options.retryAfterSeconds ?? 1,
        global: options.global ?? false,
        ...(options.route ? { route: options.route } : {}),
      });
  }

  /** The next matching call fails with `status` (body default `{ message, code: 0 }`). */
  failNext(route: RegExp, status: number, body?: unknown): void {
    this.faults.push({ kind: 'fail', route, status, ...(body !== undefined ? { body } : {}) });
  }

  /**
   * Closes the gateway socket(s): default 4000 (resumable); 1006 cuts the TCP connection without a close
   * frame. `invalidate` forgets the sessions too, so a RESUME gets op 9 and the client identifies again.
   */
  dropGateway(code = 4000, options: { invalidate?: boolean } = {}): void {
    this.gateway.drop(code, options.invalidate ?? false);
  }

  // --- Waiting

  /** The first message (now or later, re-checked on every create/edit/delete) matching `predicate`. */
  waitForMessage(
    predicate: (m: FakeDiscordMessage) => boolean,
    timeoutMs = 5_000,
  ): Promise<FakeDiscordMessage> {
    let found: FakeDiscordMessage | undefined;
    return this.waitFor(
      () => (found = this.messages.find(predicate)) !== undefined,
      timeoutMs,
      'a matching message',
    ).then(() => found as FakeDiscordMessage);
  }

  /** Resolves once `predicate` holds: re-checked on every change in the fake and every 10 ms. */
  waitFor(predicate: () => boolean, timeoutMs = 5_000, what = 'a condition'): Promise<void> {
    return this.waiters.waitFor(predicate, timeoutMs, what);
  }

  /** Closes the gateway sockets and the server; pending waits reject. Destroy the client first. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.waiters.closeAll('the fake Discord server was closed');
    this.gateway.close();
    await this.http?.close();
  }

  private thread(id: string): FakeDiscordChannel {
    const thread = this.world.channel(id);
    if (!thread || !this.world.isThread(thread)) throw new Error(`no thread ${id}`);
    return thread;
  }

  private summary(): string {
    const messages = this.messages
      .slice(-10)
      .map(
        (m) =>
          `${m.fromBot ? 'bot' : m.authorId} in ${m.channelId}: ${JSON.stringify(m.content.slice(0, 80))}`,
      );
    const calls = this.calls.slice(-10).map((c) => `${c.method} ${c.path} → ${c.status}`);
    return `last messages: ${messages.join('; ') || 'none'}; last calls: ${calls.join(', ') || 'none'}`;
  }
}

export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  return new FakeDiscord(options).start();
}
