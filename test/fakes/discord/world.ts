// The fake's state: the guild, channels, users, messages, stored files and open interactions.
import { nextId } from './snowflake.js';
import type {
  ChannelSpec,
  FakeDiscordAttachment,
  FakeDiscordChannel,
  FakeDiscordMessage,
  FakeDiscordOptions,
  InteractionResponse,
  Json,
  ThreadSpec,
} from './types.js';

export const BOT_ID = '1300000000000000001';
export const DEFAULT_GUILD_ID = '1300000000000000002';
/** Owns the guild and, by default, the threads that `createThread` starts. */
export const DEFAULT_USER_ID = '1300000000000000003';

export interface UserRecord {
  id: string;
  username: string;
  bot: boolean;
}

export interface MessageRecord extends FakeDiscordMessage {
  author: UserRecord;
  timestamp: number;
  editedAt?: number;
  /** 0 default, 19 reply, 20 chat input command... */
  type: number;
  webhookId?: string;
  /** Ids of the users mentioned as `<@id>` in the content. */
  mentions: string[];
}

export interface InteractionRecord {
  id: string;
  token: string;
  /** 3 message component, 5 modal submit. */
  type: number;
  channelId: string;
  userId: string;
  /** The message carrying the pressed component (or the modal's source message). */
  messageId?: string;
  createdAt: number;
  acknowledged: boolean;
  responseType?: number;
  /** The `@original` message of the webhook routes. */
  originalId?: string;
}

export class World {
  readonly bot: UserRecord;
  readonly applicationId: string;
  readonly guild: { id: string; name: string; ownerId: string; botRoleId: string; createdAt: number };
  readonly channels = new Map<string, FakeDiscordChannel>();
  readonly users = new Map<string, UserRecord>();
  readonly messages: MessageRecord[] = [];
  readonly attachments = new Map<string, FakeDiscordAttachment>();
  readonly interactions = new Map<string, InteractionRecord>();
  readonly interactionResponses: InteractionResponse[] = [];
  /** Modals the bot showed (type 9 callbacks), by custom_id. */
  readonly modals = new Map<string, Json>();
  readonly uploadLimitBytes: number;
  readonly interactionAckMs: number;
  /** `http://127.0.0.1:PORT`, set once listening. */
  baseUrl = '';
  /** Sends a gateway dispatch to every session (set by the server). */
  dispatch: (event: string, data: Json) => void = () => undefined;
  private readonly byId = new Map<string, MessageRecord>();
  private readonly listeners = new Set<() => void>();

  constructor(options: FakeDiscordOptions) {
    this.bot = { id: BOT_ID, username: 'Agent Bridge Test', bot: true };
    this.applicationId = BOT_ID;
    this.users.set(BOT_ID, this.bot);
    this.users.set(DEFAULT_USER_ID, { id: DEFAULT_USER_ID, username: 'guild-owner', bot: false });
    this.guild = {
      id: options.guildId ?? DEFAULT_GUILD_ID,
      name: options.guildName ?? 'Fake Guild',
      ownerId: DEFAULT_USER_ID,
      botRoleId: nextId(),
      createdAt: Date.now(),
    };
    this.uploadLimitBytes = options.uploadLimitBytes ?? 10 * 1024 * 1024;
    this.interactionAckMs = options.interactionAckMs ?? 3_000;
  }

  // --- Change notification (waiters re-check on every change)

  changed(): void {
    for (const listener of [...this.listeners]) listener();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // --- Users

  userFor(id: string, username?: string, bot = false): UserRecord {
    const known = this.users.get(id);
    if (known) {
      if (username) known.username = username;
      return known;
    }
    const user = { id, username: username ?? `user${id.slice(-4)}`, bot };
    this.users.set(id, user);
    return user;
  }

  // --- Channels

  addChannel(spec: ChannelSpec): FakeDiscordChannel {
    const id = spec.id ?? nextId();
    if (this.channels.has(id)) throw new Error(`channel ${id} exists already`);
    const channel: FakeDiscordChannel = {
      id,
      type: spec.type === 'dm' ? 1 : 0,
      name: spec.name,
      ...(spec.type === 'dm' ? {} : { guildId: this.guild.id }),
      archived: false,
      locked: false,
      deleted: false,
      lastMessageId: null,
      messageCount: 0,
      createdAt: Date.now(),
      autoArchiveDuration: 1440,
    };
    this.channels.set(id, channel);
    this.changed();
    return channel;
  }

  addThread(spec: ThreadSpec, ownerId: string): FakeDiscordChannel {
    const parent = this.channels.get(spec.parentId);
    if (!parent || parent.type !== 0 || parent.deleted)
      throw new Error(`no guild text channel ${spec.parentId} to start a thread in`);
    const id = spec.id ?? nextId();
    if (this.channels.has(id)) throw new Error(`channel ${id} exists already`);
    const thread: FakeDiscordChannel = {
      id,
      type: spec.private ? 12 : 11,
      name: spec.name,
      guildId: this.guild.id,
      parentId: parent.id,
      ownerId,
      archived: false,
      locked: false,
      deleted: false,
      lastMessageId: null,
      messageCount: 0,
      createdAt: Date.now(),
      autoArchiveDuration: 1440,
    };
    this.channels.set(id, thread);
    this.changed();
    return thread;
  }

  /** A live channel (not deleted), or undefined. */
  channel(id: string): FakeDiscordChannel | undefined {
    const channel = this.channels.get(id);
    return channel && !channel.deleted ? channel : undefined;
  }

  isThread(channel: FakeDiscordChannel): boolean {
    return channel.type === 11 || channel.type === 12;
  }

  // --- Messages and files

  addMessage(message: MessageRecord): MessageRecord {
    this.messages.push(message);
    this.byId.set(message.id, message);
    const channel = this.channels.get(message.channelId);
    if (channel && !(message.flags !== undefined && message.flags & 64)) {
      channel.lastMessageId = message.id;
      channel.messageCount += 1;
    }
    this.changed();
    return message;
  }

  message(id: string): MessageRecord | undefined {
    return this.byId.get(id);
  }

  attachmentUrl(channelId: string, attachmentId: string, filename: string): string {
    return `${this.baseUrl}/attachments/${channelId}/${attachmentId}/${encodeURIComponent(filename)}`;
  }

  storeAttachment(
    channelId: string,
    file: { filename: string; data?: Buffer; size?: number; contentType?: string },
  ): FakeDiscordAttachment {
    const id = nextId();
    const attachment: FakeDiscordAttachment = {
      id,
      filename: file.filename,
      size: file.data ? file.data.length : (file.size ?? 0),
      url: this.attachmentUrl(channelId, id, file.filename),
      ...(file.contentType ? { contentType: file.contentType } : {}),
      ...(file.data ? { data: file.data } : {}),
    };
    this.attachments.set(id, attachment);
    return attachment;
  }

  // --- Interactions

  addInteraction(record: InteractionRecord): void {
    this.interactions.set(record.id, record);
  }

  interactionByToken(token: string): InteractionRecord | undefined {
    for (const interaction of this.interactions.values()) if (interaction.token === token) return interaction;
    return undefined;
  }
}
