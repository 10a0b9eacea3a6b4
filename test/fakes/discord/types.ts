// The fake's public types: options, what simulated users do, and what the tests read back.

/** A loosely typed JSON object (wire payloads). */
export type Json = Record<string, unknown>;

export interface FakeDiscordOptions {
  /** Default `DEFAULT_TOKEN` (`<base64 bot id>.GfAkE0.<secret>`, the shape of a real bot token). */
  token?: string;
  guildId?: string;
  guildName?: string;
  /** Channels at start; default one guild text channel named `general`. */
  channels?: ChannelSpec[];
  /** Largest accepted upload per file (default 10 MiB, Discord's free tier); bigger → 413, code 40005. */
  uploadLimitBytes?: number;
  /** How long an interaction may wait for its first callback (default 3000 ms, as on Discord). */
  interactionAckMs?: number;
}

export interface ChannelSpec {
  id?: string;
  name: string;
  /** `dm`: a DM channel; its recipient is the first user who sends in it. */
  type?: 'text' | 'dm';
}

export interface ThreadSpec {
  parentId: string;
  name: string;
  id?: string;
  /** Who started the thread (default a fixed fake user, not the bot). */
  ownerId?: string;
  /** `true` for a private thread (type 12); default public (type 11). */
  private?: boolean;
}

export interface UserAttachmentSpec {
  filename: string;
  data?: Buffer;
  /** Claimed size when `data` is absent: the download route streams that many zero bytes. */
  size?: number;
  contentType?: string;
}

export interface UserSendSpec {
  userId: string;
  username?: string;
  channelId: string;
  content: string;
  bot?: boolean;
  attachments?: UserAttachmentSpec[];
  /** Makes the message a reply to this message id (type 19 with `message_reference`). */
  replyToMessageId?: string;
}

export interface ButtonPressSpec {
  userId: string;
  username?: string;
  messageId: string;
  customId: string;
  channelId?: string;
  /** Press even when the message shows no such (enabled) button now. */
  force?: boolean;
}

export interface ModalSubmitSpec {
  userId: string;
  username?: string;
  channelId: string;
  messageId?: string;
  customId: string;
  fields: Record<string, string>;
  /** Submit even when the bot never showed a modal with this custom_id. */
  force?: boolean;
}

export interface RateLimitSpec {
  /** Default 1 (Discord sends whole seconds in `Retry-After`; fractions work with discord.js too). */
  retryAfterSeconds?: number;
  global?: boolean;
  /** Tested against the path (after `/api/v10`, no query) and against `METHOD path`. */
  route?: RegExp;
}

export interface FakeDiscordAttachment {
  id: string;
  filename: string;
  size: number;
  url: string;
  contentType?: string;
  /** The bytes; absent for a user attachment given only a `size`. */
  data?: Buffer;
}

export interface FakeDiscordMessage {
  id: string;
  channelId: string;
  authorId: string;
  content: string;
  embeds: Json[];
  /** As sent: action rows (type 1) of buttons (type 2: style, label, custom_id, emoji?, disabled?). */
  components: Json[];
  attachments: FakeDiscordAttachment[];
  /** How many times it was edited (PATCH, interaction update, webhook edit). */
  edits: number;
  deleted: boolean;
  fromBot: boolean;
  /** 64 ephemeral, 128 loading (deferred reply), 4 suppress embeds, 32 has thread... */
  flags?: number;
  /** The id of the message this one replies to. */
  messageReference?: string;
  /** Emoji the bot reacted with (`👍` or `name:id`), in order. */
  reactions: string[];
  /** The interaction this message answers (type 4/5 callbacks and follow-ups). */
  interactionId?: string;
}

export interface InteractionResponse {
  interactionId: string;
  type: number;
  data?: Json;
  at: number;
}

export interface FakeCall {
  method: string;
  /** After `/api/v10`, without the query: `/channels/123/messages`; downloads as `/attachments/...`. */
  path: string;
  status: number;
  at: number;
  /** The JSON body or multipart `payload_json`, when there was one. */
  body?: unknown;
}

export interface GatewayStats {
  identifies: number;
  resumes: number;
  connections: number;
}

/** A channel as the fake keeps it (live; read-only for tests). */
export interface FakeDiscordChannel {
  id: string;
  /** 0 guild text, 1 DM, 11 public thread, 12 private thread. */
  type: number;
  name: string;
  guildId?: string;
  parentId?: string;
  ownerId?: string;
  recipientId?: string;
  archived: boolean;
  locked: boolean;
  deleted: boolean;
  lastMessageId: string | null;
  messageCount: number;
  createdAt: number;
  archivedAt?: number;
  autoArchiveDuration: number;
}
