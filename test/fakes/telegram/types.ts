// Wire objects (the subset of the Bot API the fake speaks) and the fake's own public types.

export interface TgUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  username?: string;
  language_code?: string;
}

/** What getMe answers; assignable to grammY's `UserFromGetMe` (pass it as `botInfo`). */
export interface TgBotInfo extends TgUser {
  is_bot: true;
  username: string;
  can_join_groups: boolean;
  can_read_all_group_messages: boolean;
  supports_inline_queries: boolean;
  can_connect_to_business: boolean;
  has_main_web_app: boolean;
  has_topics_enabled: boolean;
  allows_users_to_create_topics: boolean;
  can_manage_bots: boolean;
  supports_join_request_queries: boolean;
}

export interface TgChat {
  id: number;
  type: 'private' | 'group' | 'supergroup';
  title?: string;
  first_name?: string;
  username?: string;
  is_forum?: true;
}

export interface TgEntity {
  type: string;
  offset: number;
  length: number;
  url?: string;
  language?: string;
}

export interface TgInlineButton {
  text: string;
  callback_data?: string;
  url?: string;
  [key: string]: unknown;
}

/** Any reply_markup as sent; `inline_keyboard` is validated and kept. */
export interface TgReplyMarkup {
  inline_keyboard?: TgInlineButton[][];
  [key: string]: unknown;
}

export interface TgDocument {
  file_id: string;
  file_unique_id: string;
  file_name: string;
  mime_type: string;
  file_size: number;
}

export interface TgMessage {
  forum_topic_closed?: Record<string, never>;
  message_id: number;
  from: TgUser;
  chat: TgChat;
  date: number;
  edit_date?: number;
  message_thread_id?: number;
  is_topic_message?: true;
  reply_to_message?: TgMessage;
  text?: string;
  entities?: TgEntity[];
  caption?: string;
  caption_entities?: TgEntity[];
  document?: TgDocument;
  reply_markup?: TgReplyMarkup;
}

export interface TgCallbackQuery {
  id: string;
  from: TgUser;
  message: TgMessage;
  chat_instance: string;
  data: string;
}

export interface TgUpdate {
  update_id: number;
  message?: TgMessage;
  callback_query?: TgCallbackQuery;
}

/** A stored file: uploaded by a simulated user or by the bot (sendDocument). */
export interface FakeFile {
  fileId: string;
  fileUniqueId: string;
  filePath: string;
  fileName: string;
  mimeType: string;
  size: number;
  bytes: Buffer;
}

/** One version of a message's content, recorded for every successful edit. */
export interface FakeEdit {
  at: number;
  method: 'editMessageText' | 'editMessageReplyMarkup';
  text?: string;
  rawText?: string;
  reply_markup?: TgReplyMarkup;
}

/** A message in a chat, as the fake stores it. Returned objects are live (later edits show). */
export interface FakeMessage {
  chatId: number;
  messageId: number;
  fromBot: boolean;
  from: TgUser;
  date: number;
  threadId?: number;
  replyToMessageId?: number;
  /** Plain text as Telegram shows it (markup of `parse_mode` removed). */
  text?: string;
  /** The text exactly as the bot sent it (before parse_mode parsing). */
  rawText?: string;
  parseMode?: string;
  entities?: TgEntity[];
  caption?: string;
  caption_entities?: TgEntity[];
  /** The inline keyboard the message shows now (the only markup Telegram keeps on a message). */
  reply_markup?: TgReplyMarkup;
  /** As on the wire, plus the bytes. */
  document?: TgDocument & { bytes: Buffer };
  /** Parameters of the call that sent it (sendMessage / sendDocument), as parsed. */
  sendParams?: Record<string, unknown>;
  edits: FakeEdit[];
  editDate?: number;
  deleted: boolean;
  /** A service message: the forum topic was closed. */
  forumTopicClosed?: boolean;
}

export interface FakeCall {
  method: string;
  /** Parsed parameters (query + JSON / urlencoded / multipart body); file parts as `{ filename, bytes }`. */
  params: Record<string, unknown>;
  at: number;
  /** HTTP status sent back; undefined while the call is pending (e.g. a long poll) or if aborted. */
  status?: number;
  /** The client went away (aborted, timed out) before the answer was sent. */
  aborted?: boolean;
}

export interface CallbackAnswer {
  callbackQueryId: string;
  text?: string;
  showAlert?: boolean;
  url?: string;
  cacheTime?: number;
  at: number;
}

export interface FaultSpec {
  /** HTTP status and error_code, e.g. 429, 500, 400, 403. */
  status: number;
  /** For 429: seconds, sent as `parameters.retry_after` (default 1). */
  retryAfter?: number;
  description?: string;
  /** How many consecutive calls fail (default 1). */
  times?: number;
}

export interface ChatSpec {
  id: number;
  title?: string;
  /** Supergroups only: messages may carry `message_thread_id` (forum topics). */
  isForum?: boolean;
  type?: 'group' | 'supergroup';
}

export interface UserSpec {
  userId: number;
  /** Defaults to `userId` (a private chat). Negative ids are groups/supergroups. */
  chatId?: number;
  firstName?: string;
  username?: string;
}

export interface UserText extends UserSpec {
  text: string;
  replyToMessageId?: number;
  /** Forum topic (message_thread_id). */
  threadId?: number;
}

export interface UserClosesTopic extends UserSpec {
  threadId: number;
}

export interface UserPress extends UserSpec {
  messageId: number;
  data: string;
  /** Press even if the message carries no such button now (a stale or forged press). */
  force?: boolean;
}

export interface UserDocument extends UserSpec {
  fileName: string;
  bytes: Buffer | Uint8Array | string;
  caption?: string;
  mimeType?: string;
  threadId?: number;
}

export interface FakeTelegramOptions {
  /** Default `123456789:TEST-token-for-the-fake-telegram-api`; the bot id is the number before `:`. */
  token?: string;
  /** Default `fake_agent_bridge_bot`. */
  botUsername?: string;
  /** Chats to create up front (private chats are created on first use). */
  chats?: ChatSpec[];
  /**
   * Telegram answers 400 "chat not found" for chats the bot never saw. By default the fake creates a
   * chat on the bot's first send instead; strict mode only knows chats of simulated users and addChat.
   */
  strictChats?: boolean;
}

export type OfflineMode = 'reset' | 'bad-gateway';
