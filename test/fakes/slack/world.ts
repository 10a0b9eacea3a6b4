// The fake's state: the team, channels, people, messages, files, views, triggers and response URLs.
import type {
  ChannelSpec,
  FakeSlackChannel,
  FakeSlackFile,
  FakeSlackMessage,
  FakeSlackOptions,
  FakeSlackView,
  Json,
} from './types.js';

export const TEAM_ID = 'T0FAKE0001';
export const APP_ID = 'A0FAKE0001';
export const BOT_USER_ID = 'U0BOT00001';
export const BOT_ID = 'B0BOT00001';
export const BOT_TOKEN = 'xoxb-1000000001-2000000002-fakeBotTokenFakeBotToken';
export const APP_TOKEN = 'xapp-1-A0FAKE0001-3000000003-fakeappleveltokenfakeappleveltoken';

/** A response URL takes 5 replies within 30 minutes, as Slack's. */
export const RESPONSE_URL_USES = 5;
const RESPONSE_URL_TTL_MS = 30 * 60_000;

export interface Trigger {
  user: string;
  at: number;
  used: boolean;
}

export interface ResponseTarget {
  user: string;
  channel: string;
  messageTs?: string;
  threadTs?: string;
  uses: number;
  at: number;
}

export interface PendingUpload {
  filename: string;
  length: number;
  data?: Buffer;
}

export class World {
  readonly channels = new Map<string, FakeSlackChannel>();
  readonly users = new Map<string, { id: string; name: string; bot: boolean }>();
  readonly messages: FakeSlackMessage[] = [];
  readonly files = new Map<string, FakeSlackFile>();
  readonly uploads = new Map<string, PendingUpload>();
  readonly views = new Map<string, FakeSlackView>();
  /** The App Home each person was last shown. */
  readonly homes = new Map<string, Json>();
  readonly triggers = new Map<string, Trigger>();
  readonly responses = new Map<string, ResponseTarget>();
  readonly textLimit: number;
  readonly blocksCharLimit: number;
  readonly triggerTtlMs: number;
  /** `http://127.0.0.1:PORT`, set once listening. */
  baseUrl = '';
  /** Sends an envelope over the socket (set by the server). */
  deliver: (type: 'events_api' | 'interactive' | 'slash_commands', payload: Json) => string = () => '';
  private lastTs = 0;
  private counter = 0;
  private readonly listeners = new Set<() => void>();

  constructor(options: FakeSlackOptions) {
    this.textLimit = options.textLimit ?? 4_000;
    this.blocksCharLimit = options.blocksCharLimit ?? 12_000;
    this.triggerTtlMs = options.triggerTtlMs ?? 3_000;
    this.users.set(BOT_USER_ID, { id: BOT_USER_ID, name: 'agent-bridge', bot: true });
    for (const spec of options.channels ?? [{ name: 'general' }]) this.addChannel(spec);
  }

  /** A Slack id: the prefix, then uppercase letters and digits. */
  id(prefix: string): string {
    this.counter += 1;
    return `${prefix}0${this.counter.toString(36).toUpperCase().padStart(8, '0')}`;
  }

  /** Message timestamps: seconds, a dot, six digits; always increasing. */
  nextTs(): string {
    const micro = Math.max(Date.now() * 1000, this.lastTs + 1);
    this.lastTs = micro;
    return `${Math.floor(micro / 1e6)}.${String(micro % 1e6).padStart(6, '0')}`;
  }

  addChannel(spec: ChannelSpec): FakeSlackChannel {
    const type = spec.type ?? 'channel';
    const channel: FakeSlackChannel = {
      id: spec.id ?? this.id(type === 'group' ? 'G' : 'C'),
      name: spec.name,
      type,
      botMember: spec.botMember ?? true,
    };
    this.channels.set(channel.id, channel);
    return channel;
  }

  user(id: string): { id: string; name: string; bot: boolean } {
    let user = this.users.get(id);
    if (!user) {
      user = { id, name: `user-${id.toLowerCase()}`, bot: false };
      this.users.set(id, user);
    }
    return user;
  }

  /** The DM between the bot and `user`, opened on first use. */
  im(user: string): FakeSlackChannel {
    for (const channel of this.channels.values()) if (channel.imUser === user) return channel;
    const channel: FakeSlackChannel = {
      id: this.id('D'),
      name: user,
      type: 'im',
      botMember: true,
      imUser: user,
    };
    this.channels.set(channel.id, channel);
    return channel;
  }

  message(channel: string, ts: string): FakeSlackMessage | undefined {
    return this.messages.find((m) => m.channel === channel && m.ts === ts && !m.ephemeralFor);
  }

  addMessage(message: Omit<FakeSlackMessage, 'edits' | 'deleted'>): FakeSlackMessage {
    const stored = { ...message, edits: 0, deleted: false };
    this.messages.push(stored);
    this.changed();
    return stored;
  }

  /** A message from the bot (its ts, author and `fromBot` filled in). */
  botMessage(
    channel: string,
    fields: Pick<FakeSlackMessage, 'text' | 'via'> &
      Partial<Pick<FakeSlackMessage, 'blocks' | 'threadTs' | 'files' | 'ephemeralFor'>>,
  ): FakeSlackMessage {
    const { threadTs, ephemeralFor, ...rest } = fields;
    return this.addMessage({
      ts: this.nextTs(),
      channel,
      user: BOT_USER_ID,
      fromBot: true,
      blocks: [],
      files: [],
      ...rest,
      ...(threadTs ? { threadTs } : {}),
      ...(ephemeralFor ? { ephemeralFor } : {}),
    });
  }

  trigger(user: string): string {
    const id = `${this.counter + 1}.${Date.now()}.${this.id('X').slice(1).toLowerCase()}`;
    this.triggers.set(id, { user, at: Date.now(), used: false });
    return id;
  }

  responseUrl(target: Omit<ResponseTarget, 'uses' | 'at'>): string {
    const id = this.id('R');
    this.responses.set(id, { ...target, uses: 0, at: Date.now() });
    return `${this.baseUrl}/response/${id}`;
  }

  responseFor(id: string): ResponseTarget | null {
    const target = this.responses.get(id);
    if (!target || target.uses >= RESPONSE_URL_USES || Date.now() - target.at > RESPONSE_URL_TTL_MS)
      return null;
    return target;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
