// Chats, users, messages (ids per chat, shared by the bot and users) and stored files.
import type {
  ChatSpec,
  FakeFile,
  FakeMessage,
  TgBotInfo,
  TgChat,
  TgDocument,
  TgMessage,
  TgUser,
  UserSpec,
} from './types.js';
import { ApiError, badRequest } from './wire.js';

const MIME_TYPES: Record<string, string> = {
  txt: 'text/plain',
  log: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  json: 'application/json',
  html: 'text/html',
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  zip: 'application/zip',
  gz: 'application/gzip',
  cast: 'application/x-asciicast',
};

/** Telegram guesses the MIME type from the file name; multipart parts say application/octet-stream. */
export function mimeTypeOf(fileName: string): string {
  const extension = fileName.includes('.') ? (fileName.split('.').pop() ?? '').toLowerCase() : '';
  return MIME_TYPES[extension] ?? 'application/octet-stream';
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** A stored file as a message's `document` (the Telegram object plus the bytes). */
export function documentFields(file: FakeFile): TgDocument & { bytes: Buffer } {
  return {
    file_id: file.fileId,
    file_unique_id: file.fileUniqueId,
    file_name: file.fileName,
    mime_type: file.mimeType,
    file_size: file.size,
    bytes: file.bytes,
  };
}

export type NewMessage = Omit<FakeMessage, 'messageId' | 'date' | 'edits' | 'deleted'>;

export class ChatStore {
  private readonly chats = new Map<number, TgChat>();
  private readonly users = new Map<number, TgUser>();
  private readonly byChat = new Map<number, Map<number, FakeMessage>>();
  private readonly ordered: FakeMessage[] = [];
  private readonly files = new Map<string, FakeFile>();
  private readonly filesByPath = new Map<string, FakeFile>();
  private readonly listeners = new Set<() => void>();
  private readonly blocked = new Set<number>();
  private fileCounter = 0;

  constructor(
    readonly bot: TgBotInfo,
    private readonly strictChats: boolean,
  ) {}

  addChat(spec: ChatSpec): TgChat {
    if (spec.id >= 0) throw new Error(`addChat is for groups (negative ids); got ${spec.id}`);
    const type = spec.type ?? 'supergroup';
    const chat: TgChat = { id: spec.id, type, title: spec.title ?? `Group ${-spec.id}` };
    if (spec.isForum && type === 'supergroup') chat.is_forum = true;
    this.chats.set(spec.id, chat);
    return chat;
  }

  /** The user behind a simulated action, created or renamed as given. */
  userFor(spec: UserSpec): TgUser {
    if (!Number.isInteger(spec.userId) || spec.userId <= 0) throw new Error(`bad userId ${spec.userId}`);
    const user = this.users.get(spec.userId) ?? {
      id: spec.userId,
      is_bot: false,
      first_name: `User ${spec.userId}`,
      language_code: 'en',
    };
    if (spec.firstName) user.first_name = spec.firstName;
    if (spec.username) user.username = spec.username;
    this.users.set(spec.userId, user);
    return user;
  }

  /** The chat a simulated user writes in: their private chat, or a group (created on first use). */
  chatForUser(spec: UserSpec): TgChat {
    const user = this.userFor(spec);
    const chatId = spec.chatId ?? user.id;
    if (chatId > 0 && chatId !== user.id)
      throw new Error(`private chat ${chatId} belongs to user ${chatId}, not ${user.id}`);
    const existing = this.chats.get(chatId);
    if (existing) return existing;
    if (chatId < 0) return this.addChat({ id: chatId });
    const chat: TgChat = { id: chatId, type: 'private', first_name: user.first_name };
    if (user.username) chat.username = user.username;
    this.chats.set(chatId, chat);
    return chat;
  }

  /** The chat a bot call names; unknown chats are created unless the fake is strict. */
  chatForBot(chatId: number, create = true): TgChat {
    if (this.blocked.has(chatId)) throw new ApiError(403, 'Forbidden: bot was blocked by the user');
    const existing = this.chats.get(chatId);
    if (existing) return existing;
    if (!create || this.strictChats) throw badRequest('chat not found');
    return chatId < 0 ? this.addChat({ id: chatId }) : this.chatForUser({ userId: chatId });
  }

  setBlocked(chatId: number, blocked: boolean): void {
    if (blocked) this.blocked.add(chatId);
    else this.blocked.delete(chatId);
  }

  addMessage(fields: NewMessage): FakeMessage {
    let messages = this.byChat.get(fields.chatId);
    if (!messages) this.byChat.set(fields.chatId, (messages = new Map()));
    const messageId = messages.size + 1;
    const message: FakeMessage = { ...fields, messageId, date: nowSeconds(), edits: [], deleted: false };
    messages.set(messageId, message);
    this.ordered.push(message);
    this.changed();
    return message;
  }

  get(chatId: number, messageId: number): FakeMessage | undefined {
    return this.byChat.get(chatId)?.get(messageId);
  }

  /** All messages in creation order, bot's and users', optionally of one chat. */
  all(chatId?: number): FakeMessage[] {
    return this.ordered.filter((message) => chatId === undefined || message.chatId === chatId);
  }

  storeFile(fileName: string, bytes: Buffer, mimeType: string | undefined): FakeFile {
    const n = ++this.fileCounter;
    const extension = fileName.includes('.') ? `.${fileName.split('.').pop()}` : '';
    const file: FakeFile = {
      fileId: `BQACAgFakeDocument${n}AAQ${Math.random().toString(36).slice(2, 10)}`,
      fileUniqueId: `AgADFake${n}`,
      filePath: `documents/file_${n}${extension}`,
      fileName,
      mimeType: mimeType ?? mimeTypeOf(fileName),
      size: bytes.length,
      bytes,
    };
    this.files.set(file.fileId, file);
    this.filesByPath.set(file.filePath, file);
    return file;
  }

  file(fileId: string): FakeFile | undefined {
    return this.files.get(fileId);
  }

  fileByPath(filePath: string): FakeFile | undefined {
    return this.filesByPath.get(filePath);
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** The Message object Telegram would send for a stored message. */
  toWire(message: FakeMessage, nested = false): TgMessage {
    const chat = this.chats.get(message.chatId) ?? { id: message.chatId, type: 'private' };
    const wire: TgMessage = { message_id: message.messageId, from: message.from, chat, date: message.date };
    if (message.editDate !== undefined) wire.edit_date = message.editDate;
    if (message.threadId !== undefined) {
      wire.message_thread_id = message.threadId;
      if (chat.is_forum) wire.is_topic_message = true;
    }
    const replied = message.replyToMessageId ? this.get(message.chatId, message.replyToMessageId) : undefined;
    if (!nested && replied && !replied.deleted) wire.reply_to_message = this.toWire(replied, true);
    if (message.text !== undefined) wire.text = message.text;
    if (message.entities?.length) wire.entities = message.entities;
    if (message.caption !== undefined) wire.caption = message.caption;
    if (message.caption_entities?.length) wire.caption_entities = message.caption_entities;
    if (message.document) {
      const { bytes: _bytes, ...document } = message.document;
      wire.document = document;
    }
    if (message.reply_markup) wire.reply_markup = message.reply_markup;
    if (message.forumTopicClosed) wire.forum_topic_closed = {};
    return wire;
  }
}
