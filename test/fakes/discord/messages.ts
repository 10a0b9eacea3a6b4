// Creating, editing and deleting messages (the bot's REST sends, interaction replies, webhooks, users).
import { ApiError, emptyMessage, FormErrors, tooLarge } from './errors.js';
import { channelWire, messageDispatch } from './serialize.js';
import { nextId } from './snowflake.js';
import type { FakeDiscordAttachment, FakeDiscordChannel, Json } from './types.js';
import { checkMessagePayload } from './validate.js';
import type { UploadedFile } from './wire.js';
import type { MessageRecord, UserRecord, World } from './world.js';

export const EPHEMERAL = 64;
export const LOADING = 128;
/** Flags a sender may set: suppress embeds, ephemeral, suppress notifications, components v2. */
const SETTABLE_FLAGS = 4 | 64 | 4096 | 32768;

export interface NewMessage {
  author: UserRecord;
  fromBot: boolean;
  webhookId?: string;
  interactionId?: string;
  /** A deferred reply's placeholder: may be empty, flagged LOADING until edited. */
  loading?: boolean;
}

const isEphemeral = (message: { flags?: number }): boolean => ((message.flags ?? 0) & EPHEMERAL) !== 0;

export function mentionsIn(content: string): string[] {
  return [...content.matchAll(/<@!?(\d+)>/g)].map((match) => match[1] ?? '');
}

function uploads(
  world: World,
  channelId: string,
  payload: Json,
  files: UploadedFile[],
): FakeDiscordAttachment[] {
  const metas = Array.isArray(payload['attachments']) ? (payload['attachments'] as Json[]) : [];
  return files.map((file) => {
    if (file.data.length > world.uploadLimitBytes) throw tooLarge();
    const meta = metas.find((m) => String(m['id']) === String(file.index));
    const filename = typeof meta?.['filename'] === 'string' ? meta['filename'] : file.filename;
    return world.storeAttachment(channelId, { filename, data: file.data, contentType: file.contentType });
  });
}

function referenceOf(world: World, payload: Json): string | undefined {
  const reference = payload['message_reference'] as Json | undefined;
  const id = reference?.['message_id'];
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  const target = world.message(String(id));
  if (target && !target.deleted) return target.id;
  if (reference?.['fail_if_not_exists'] === false) return undefined;
  const errors = new FormErrors();
  errors.add(['message_reference'], 'REPLIES_UNKNOWN_MESSAGE', 'Unknown message');
  errors.throwIfAny();
  return undefined;
}

const isEmpty = (m: {
  content: string;
  embeds: unknown[];
  components: unknown[];
  attachments: unknown[];
}): boolean =>
  m.content === '' && m.embeds.length === 0 && m.components.length === 0 && m.attachments.length === 0;

/** Validates and stores a message in `channel`; dispatches MESSAGE_CREATE unless it is ephemeral. */
export function createMessage(
  world: World,
  channel: FakeDiscordChannel,
  payload: Json,
  files: UploadedFile[],
  origin: NewMessage,
): MessageRecord {
  checkMessagePayload(payload);
  const messageReference = referenceOf(world, payload);
  const content = typeof payload['content'] === 'string' ? payload['content'] : '';
  const embeds = Array.isArray(payload['embeds']) ? (payload['embeds'] as Json[]) : [];
  const components = Array.isArray(payload['components']) ? (payload['components'] as Json[]) : [];
  const stickers = Array.isArray(payload['sticker_ids']) ? payload['sticker_ids'].length : 0;
  const empty = isEmpty({ content, embeds, components, attachments: files }) && !stickers && !payload['poll'];
  if (empty && !origin.loading) throw emptyMessage();
  const attachments = uploads(world, channel.id, payload, files);
  const flags = (Number(payload['flags'] ?? 0) & SETTABLE_FLAGS) | (origin.loading ? LOADING : 0);
  const message: MessageRecord = {
    id: nextId(),
    channelId: channel.id,
    authorId: origin.author.id,
    content,
    embeds,
    components,
    attachments,
    edits: 0,
    deleted: false,
    fromBot: origin.fromBot,
    flags,
    reactions: [],
    author: origin.author,
    timestamp: Date.now(),
    type: messageReference ? 19 : 0,
    mentions: mentionsIn(content),
    ...(messageReference ? { messageReference } : {}),
    ...(origin.webhookId ? { webhookId: origin.webhookId } : {}),
    ...(origin.interactionId ? { interactionId: origin.interactionId } : {}),
  };
  world.addMessage(message);
  if (!isEphemeral(message)) world.dispatch('MESSAGE_CREATE', messageDispatch(world, message));
  return message;
}

/**
 * Applies a PATCH: fields present replace (null clears); `attachments` lists the ones to keep (by id) plus
 * new uploads (by `files[n]` index); without it, old attachments stay and uploads are added.
 */
export function editMessage(
  world: World,
  message: MessageRecord,
  payload: Json,
  files: UploadedFile[],
): void {
  checkMessagePayload(payload);
  const next = {
    content: 'content' in payload ? String(payload['content'] ?? '') : message.content,
    embeds: 'embeds' in payload ? ((payload['embeds'] ?? []) as Json[]) : message.embeds,
    components: 'components' in payload ? ((payload['components'] ?? []) as Json[]) : message.components,
    attachments: message.attachments,
  };
  const listed = Array.isArray(payload['attachments']) ? (payload['attachments'] as Json[]) : undefined;
  if (listed)
    next.attachments = message.attachments.filter((a) => listed.some((l) => String(l['id']) === a.id));
  if (isEmpty({ ...next, attachments: [...next.attachments, ...files] })) throw emptyMessage();
  next.attachments = [...next.attachments, ...uploads(world, message.channelId, payload, files)];
  Object.assign(message, next);
  message.mentions = mentionsIn(message.content);
  if ('flags' in payload) message.flags = ((message.flags ?? 0) & ~4) | (Number(payload['flags'] ?? 0) & 4);
  message.flags = (message.flags ?? 0) & ~LOADING;
  message.edits += 1;
  message.editedAt = Date.now();
  world.changed();
  if (!isEphemeral(message)) world.dispatch('MESSAGE_UPDATE', messageDispatch(world, message));
}

export function deleteMessage(world: World, message: MessageRecord): void {
  message.deleted = true;
  world.changed();
  if (isEphemeral(message)) return;
  const channel = world.channels.get(message.channelId);
  world.dispatch('MESSAGE_DELETE', {
    id: message.id,
    channel_id: message.channelId,
    ...(channel?.guildId ? { guild_id: channel.guildId } : {}),
  });
}

/** Sending into an archived thread unarchives it (THREAD_UPDATE) unless it is locked (400 / 50083). */
export function unarchiveForSend(world: World, channel: FakeDiscordChannel): void {
  if (!world.isThread(channel) || !channel.archived) return;
  if (channel.locked) throw new ApiError(400, 50083, 'Thread is archived');
  channel.archived = false;
  channel.archivedAt = Date.now();
  world.changed();
  world.dispatch('THREAD_UPDATE', channelWire(world, channel));
}

/** A message visible in `channelId` (not deleted), else undefined. */
export function visibleMessage(
  world: World,
  channelId: string,
  messageId: string,
): MessageRecord | undefined {
  const message = world.message(messageId);
  return message && !message.deleted && message.channelId === channelId ? message : undefined;
}
