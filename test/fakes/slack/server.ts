// A fake Slack (Web API, Socket Mode, response URLs, file uploads and downloads) for the real @slack/bolt.
import { ChangeWaiters } from '../change-waiters.js';
import { buttonsIn, isObject, showsButton } from './blocks.js';
import { eventCallback, messageEvent, messageForPayload, userObject } from './events.js';
import { listen, type Fault, type Listening } from './http.js';
import { SocketServer } from './socket.js';
import type {
  FakeAck,
  FakeCall,
  FakeDownload,
  FakeSlackChannel,
  FakeSlackMessage,
  FakeSlackOptions,
  FakeSlackView,
  Interaction,
  Json,
  PressSpec,
  SocketStats,
  UserSendSpec,
} from './types.js';
import { APP_ID, APP_TOKEN, BOT_ID, BOT_TOKEN, BOT_USER_ID, TEAM_ID, World } from './world.js';

export type * from './types.js';
export { APP_TOKEN, BOT_ID, BOT_TOKEN, BOT_USER_ID, TEAM_ID } from './world.js';

export class FakeSlack {
  readonly token = BOT_TOKEN;
  readonly appToken = APP_TOKEN;
  readonly botUserId = BOT_USER_ID;
  readonly calls: FakeCall[] = [];
  readonly downloads: FakeDownload[] = [];
  private readonly world: World;
  private readonly socket: SocketServer;
  private http: Listening | null = null;
  private readonly faults: Fault[] = [];
  private closed = false;
  private readonly waiters: ChangeWaiters;

  constructor(options: FakeSlackOptions = {}) {
    this.world = new World(options);
    this.socket = new SocketServer(
      () => this.world.baseUrl,
      () => this.world.changed(),
    );
    this.world.deliver = (type, payload) => this.socket.send(type, payload);
    this.socket.onAck((ack) => this.applyAck(ack));
    this.waiters = new ChangeWaiters(
      (listener) => this.world.onChange(listener),
      () => this.summary(),
    );
  }

  async start(): Promise<this> {
    this.http = await listen({
      world: this.world,
      record: (call) => {
        this.calls.push(call);
        this.world.changed();
      },
      takeFault: (method) => {
        const at = this.faults.findIndex(
          (f) => (f.kind === 'rate-limit' && !f.method) || ('method' in f && f.method === method),
        );
        return at < 0 ? undefined : this.faults.splice(at, 1)[0];
      },
      downloaded: (download) => {
        this.downloads.push(download);
        this.world.changed();
      },
      socketUrl: () => this.socket.url(),
      upgrade: (req, socket, head) => this.socket.upgrade(req, socket, head),
    });
    this.world.baseUrl = `http://127.0.0.1:${this.http.port}`;
    return this;
  }

  /** `http://127.0.0.1:PORT/api/`: Bolt's `clientOptions.slackApiUrl`. */
  get apiRoot(): string {
    return `${this.world.baseUrl}/api/`;
  }

  get baseUrl(): string {
    return this.world.baseUrl;
  }

  get socketStats(): SocketStats {
    return this.socket.stats;
  }

  get acks(): FakeAck[] {
    return this.socket.acks;
  }

  /** Every message: people's, the bot's, ephemeral ones (with `ephemeralFor`); live, edits included. */
  get messages(): FakeSlackMessage[] {
    return this.world.messages;
  }

  get views(): FakeSlackView[] {
    return [...this.world.views.values()];
  }

  /** The App Home `user` was last shown (views.publish), or undefined. */
  home(user: string): Json | undefined {
    return this.world.homes.get(user);
  }

  channel(id: string): FakeSlackChannel | undefined {
    return this.world.channels.get(id);
  }

  message(channel: string, ts: string): FakeSlackMessage | undefined {
    return this.world.message(channel, ts);
  }

  addChannel(spec: { id?: string; name: string; type?: 'channel' | 'group'; botMember?: boolean }): string {
    return this.world.addChannel(spec).id;
  }

  /** The DM between the bot and `user` (opened now if it was not). */
  dmWith(user: string): string {
    return this.world.im(user).id;
  }

  // --- People

  /** A message from a person (with files: a file_share), dispatched as a `message` event. */
  userSends(spec: UserSendSpec): FakeSlackMessage {
    const channel = /^[UW]/.test(spec.channel) ? this.world.im(spec.channel).id : spec.channel;
    if (!this.world.channels.has(channel)) throw new Error(`no channel ${channel}`);
    this.world.user(spec.user);
    const files = (spec.files ?? []).map((f) => {
      const id = this.world.id('F');
      const size = f.data?.length ?? f.size ?? 0;
      const file = {
        id,
        name: f.name,
        title: f.name,
        size,
        ...(f.data ? { data: f.data } : {}),
        mimetype: f.mimetype ?? 'application/octet-stream',
        urlPrivateDownload:
          f.url ?? `${this.world.baseUrl}/files-pri/${TEAM_ID}-${id}/download/${encodeURIComponent(f.name)}`,
        uploadedBy: spec.user,
      };
      this.world.files.set(id, file);
      return file;
    });
    const message = this.world.addMessage({
      ts: this.world.nextTs(),
      channel,
      user: spec.user,
      fromBot: false,
      text: spec.text,
      blocks: [],
      ...(spec.threadTs ? { threadTs: spec.threadTs } : {}),
      files,
      via: 'person',
    });
    this.socket.send('events_api', eventCallback(this.world, messageEvent(this.world, message)));
    return message;
  }

  /** A person deletes a message: `message_deleted`, or a tombstone (`message_changed`) where it has replies. */
  userDeletesMessage(channel: string, ts: string): void {
    const message = this.world.message(channel, ts);
    if (!message) throw new Error(`no message ${ts} in ${channel}`);
    const replies = this.world.messages.some(
      (m) => m.channel === channel && m.threadTs === ts && m.ts !== ts,
    );
    message.deleted = !replies;
    this.world.changed();
    const event = replies
      ? {
          type: 'message',
          subtype: 'message_changed',
          channel,
          hidden: true,
          ts: this.world.nextTs(),
          message: {
            ts,
            thread_ts: ts,
            subtype: 'tombstone',
            text: 'This message was deleted.',
            user: 'USLACKBOT',
          },
        }
      : {
          type: 'message',
          subtype: 'message_deleted',
          channel,
          hidden: true,
          ts: this.world.nextTs(),
          deleted_ts: ts,
          previous_message: {
            ts,
            text: message.text,
            user: message.user,
            ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
          },
        };
    this.socket.send('events_api', eventCallback(this.world, event));
  }

  /** block_actions for a button on a message; throws unless the message shows it now (`force` to press anyway). */
  userPressesButton(spec: PressSpec): Interaction {
    const message = this.findMessage(spec.messageTs, spec.channel);
    if (!spec.force && (!message || !showsButton(message.blocks, spec.actionId)))
      throw new Error(`message ${spec.messageTs} shows no button ${spec.actionId}`);
    const channel = message?.channel ?? spec.channel ?? '';
    const triggerId = this.world.trigger(spec.user);
    const responseUrl = this.world.responseUrl({
      user: spec.user,
      channel,
      messageTs: spec.messageTs,
      ...(message?.threadTs ? { threadTs: message.threadTs } : {}),
    });
    const button = message
      ? buttonsIn(message.blocks).find((b) => b['action_id'] === spec.actionId)
      : undefined;
    let payload: Json = {
      type: 'block_actions',
      user: userObject(this.world, spec.user),
      api_app_id: APP_ID,
      token: 'fake-verification-token',
      container: {
        type: 'message',
        message_ts: spec.messageTs,
        channel_id: channel,
        is_ephemeral: false,
        ...(message?.threadTs ? { thread_ts: message.threadTs } : {}),
      },
      trigger_id: triggerId,
      team: { id: TEAM_ID, domain: 'fake' },
      enterprise: null,
      is_enterprise_install: false,
      channel: { id: channel, name: this.world.channels.get(channel)?.name ?? channel },
      ...(message ? { message: messageForPayload(message) } : {}),
      state: { values: {} },
      response_url: responseUrl,
      actions: [
        {
          action_id: spec.actionId,
          block_id: 'prompt:0',
          text: button?.['text'] ?? { type: 'plain_text', text: 'button', emoji: true },
          value: button?.['value'] ?? spec.actionId,
          type: 'button',
          action_ts: this.world.nextTs(),
        },
      ],
    };
    if (spec.tamper) payload = spec.tamper(payload);
    return { envelopeId: this.socket.send('interactive', payload), triggerId, responseUrl };
  }

  /** A button on `user`'s App Home; throws unless their home shows it (`force` to press anyway). */
  userPressesHomeButton(spec: { user: string; actionId: string; force?: boolean }): Interaction {
    const home = this.world.homes.get(spec.user);
    if (!spec.force && (!home || !showsButton(home['blocks'] as Json[], spec.actionId)))
      throw new Error(`the App Home of ${spec.user} shows no button ${spec.actionId}`);
    const triggerId = this.world.trigger(spec.user);
    const viewId = String(home?.['id'] ?? 'V0NONE');
    const payload: Json = {
      type: 'block_actions',
      user: userObject(this.world, spec.user),
      api_app_id: APP_ID,
      token: 'fake-verification-token',
      container: { type: 'view', view_id: viewId },
      trigger_id: triggerId,
      team: { id: TEAM_ID, domain: 'fake' },
      view: { ...(home ?? {}), id: viewId, type: 'home' },
      actions: [
        {
          action_id: spec.actionId,
          block_id: 'panel:0',
          value: spec.actionId,
          type: 'button',
          action_ts: this.world.nextTs(),
        },
      ],
    };
    return { envelopeId: this.socket.send('interactive', payload), triggerId, responseUrl: '' };
  }

  /** view_submission of a form the bot opened for `user`; throws unless it is open (`force` to submit anyway). */
  userSubmitsForm(spec: {
    user: string;
    viewId: string;
    value: string;
    force?: boolean;
    tamper?: (view: Json) => Json;
  }): string {
    const stored = this.world.views.get(spec.viewId);
    if (!spec.force && (!stored || stored.type !== 'modal' || stored.closed || stored.user !== spec.user))
      throw new Error(`no open form ${spec.viewId} for ${spec.user}`);
    const view = stored?.view ?? {};
    const input = (view['blocks'] as Json[] | undefined)?.find((b) => b['type'] === 'input');
    const blockId = String(input?.['block_id'] ?? 'answer');
    const actionId = String((input?.['element'] as Json | undefined)?.['action_id'] ?? 'text');
    let payloadView: Json = {
      id: spec.viewId,
      team_id: TEAM_ID,
      type: 'modal',
      blocks: view['blocks'] ?? [],
      private_metadata: view['private_metadata'] ?? '',
      callback_id: view['callback_id'] ?? '',
      state: { values: { [blockId]: { [actionId]: { type: 'plain_text_input', value: spec.value } } } },
      hash: 'fakehash',
      title: view['title'],
      app_id: APP_ID,
    };
    if (spec.tamper) payloadView = spec.tamper(payloadView);
    return this.socket.send('interactive', {
      type: 'view_submission',
      team: { id: TEAM_ID, domain: 'fake' },
      user: userObject(this.world, spec.user),
      api_app_id: APP_ID,
      token: 'fake-verification-token',
      trigger_id: this.world.trigger(spec.user),
      view: payloadView,
      response_urls: [],
      is_enterprise_install: false,
    });
  }

  /** `/agent-bridge <text>` typed by `user` in `channel`. */
  userRunsCommand(spec: { user: string; channel: string; text: string; command?: string }): Interaction {
    const channel = /^[UW]/.test(spec.channel) ? this.world.im(spec.channel).id : spec.channel;
    const triggerId = this.world.trigger(spec.user);
    const responseUrl = this.world.responseUrl({ user: spec.user, channel });
    const envelopeId = this.socket.send('slash_commands', {
      token: 'fake-verification-token',
      team_id: TEAM_ID,
      team_domain: 'fake',
      channel_id: channel,
      channel_name: this.world.channels.get(channel)?.name ?? 'unknown',
      user_id: spec.user,
      user_name: this.world.user(spec.user).name,
      command: spec.command ?? '/agent-bridge',
      text: spec.text,
      api_app_id: APP_ID,
      is_enterprise_install: 'false',
      response_url: responseUrl,
      trigger_id: triggerId,
    });
    return { envelopeId, triggerId, responseUrl };
  }

  userOpensHome(user: string): void {
    this.world.user(user);
    this.socket.send(
      'events_api',
      eventCallback(this.world, {
        type: 'app_home_opened',
        user,
        channel: this.world.im(user).id,
        tab: 'home',
        event_ts: this.world.nextTs(),
      }),
    );
  }

  // --- The socket

  /** Any Events API callback or interactive payload, as given. */
  sendEnvelope(type: 'events_api' | 'interactive' | 'slash_commands', payload: Json): string {
    return this.socket.send(type, payload);
  }

  /** An event (wrapped in an Events API callback), as given. */
  sendEvent(event: Json): string {
    return this.socket.send('events_api', eventCallback(this.world, event));
  }

  /** The same envelope again (`retry_attempt` + 1). */
  redeliver(envelopeId: string): void {
    this.socket.resend(envelopeId);
  }

  /** A text frame, as given, to the open sockets. */
  sendRawFrame(text: string): void {
    this.socket.raw(text);
  }

  /** `disconnect` / `refresh_requested`: the client closes and connects again (a new apps.connections.open). */
  requestRefresh(reason = 'refresh_requested'): void {
    this.socket.requestDisconnect(reason);
  }

  /** Cuts the sockets without a close frame. */
  dropSocket(): void {
    this.socket.drop();
  }

  // --- Faults

  /** The next `count` calls (of `method`, or any) get 429 with `Retry-After`. */
  rateLimitNext(count: number, options: { method?: string; retryAfterSeconds?: number } = {}): void {
    for (let i = 0; i < count; i += 1)
      this.faults.push({
        kind: 'rate-limit',
        retryAfterSeconds: options.retryAfterSeconds ?? 1,
        ...(options.method ? { method: options.method } : {}),
      });
  }

  /** The next call of `method` answers `{ ok: false, error }`. */
  failNext(method: string, error: string): void {
    this.faults.push({ kind: 'error', method, error });
  }

  /** The next call of `method` gets HTTP `status` (`download` or `download:F…` for file downloads). */
  httpFailNext(method: string, status: number): void {
    this.faults.push({ kind: 'http', method, status });
  }

  // --- Waiting

  waitForMessage(predicate: (m: FakeSlackMessage) => boolean, timeoutMs = 5_000): Promise<FakeSlackMessage> {
    let found: FakeSlackMessage | undefined;
    return this.waitFor(
      () => (found = this.messages.find(predicate)) !== undefined,
      timeoutMs,
      'a matching message',
    ).then(() => found!);
  }

  /** Resolves once `predicate` holds: re-checked on every change in the fake and every 10 ms. */
  waitFor(predicate: () => boolean, timeoutMs = 5_000, what = 'a condition'): Promise<void> {
    return this.waiters.waitFor(predicate, timeoutMs, what);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.waiters.closeAll('the fake Slack server was closed');
    this.socket.close();
    await this.http?.close();
  }

  private findMessage(ts: string, channel?: string): FakeSlackMessage | undefined {
    return this.messages.find((m) => m.ts === ts && !m.ephemeralFor && (!channel || m.channel === channel));
  }

  /** A command's ack may answer (shown to that person); a form's ack closes it unless it lists errors. */
  private applyAck(ack: FakeAck): void {
    const envelope = this.socket.envelopes.get(ack.envelopeId);
    if (!envelope) return;
    if (envelope.type === 'slash_commands' && typeof ack.payload?.['text'] === 'string') {
      const user = String(envelope.payload['user_id']);
      this.world.botMessage(String(envelope.payload['channel_id']), {
        text: ack.payload['text'],
        ...(ack.payload['response_type'] === 'in_channel' ? {} : { ephemeralFor: user }),
        via: 'ack',
      });
    }
    const view = envelope.payload['view'];
    if (
      envelope.payload['type'] === 'view_submission' &&
      isObject(view) &&
      ack.payload?.['response_action'] !== 'errors'
    ) {
      const stored = this.world.views.get(String(view['id']));
      if (stored) stored.closed = true;
      this.world.changed();
    }
  }

  private summary(): string {
    const messages = this.messages
      .slice(-8)
      .map(
        (m) =>
          `${m.fromBot ? 'bot' : m.user}${m.ephemeralFor ? `→${m.ephemeralFor}` : ''} in ${m.channel}${m.threadTs ? `/${m.threadTs}` : ''}: ${JSON.stringify(m.text.slice(0, 80))}`,
      );
    const calls = this.calls.slice(-8).map((c) => `${c.method} → ${c.status}${c.ok ? '' : ` ${c.error}`}`);
    return `last messages: ${messages.join('; ') || 'none'}; last calls: ${calls.join(', ') || 'none'}; socket ${JSON.stringify(this.socket.stats)}`;
  }
}

export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  return new FakeSlack(options).start();
}

export { BOT_ID as FAKE_BOT_ID, APP_ID as FAKE_APP_ID };
