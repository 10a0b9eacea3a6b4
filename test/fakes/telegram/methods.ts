// Bot API methods that send, edit or delete messages; the rest are in bot-methods.ts
// (getUpdates lives in http.ts: it is asynchronous).
import { BOT_METHODS } from './bot-methods.js';
import { parseFormatted, type Formatted } from './entities.js';
import { inlineMarkupOf, stable } from './markup.js';
import { documentFields, nowSeconds } from './state.js';
import type { FakeFile, FakeMessage, TgChat, TgEntity } from './types.js';
import type { Handler, World } from './world.js';
import {
  ApiError,
  badRequest,
  chatIdOf,
  isFilePart,
  optBool,
  optInt,
  optObject,
  optString,
  type FilePart,
  type Params,
} from './wire.js';

export { DOWNLOAD_LIMIT } from './bot-methods.js';

const TEXT_LIMIT = 4096;
const CAPTION_LIMIT = 1024;
const UPLOAD_LIMIT = 50 * 1024 * 1024;
const NOT_MODIFIED =
  'message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message';

function formatted(params: Params, textKey: 'text' | 'caption'): Formatted {
  const raw = optString(params, textKey) ?? '';
  const parseMode = optString(params, 'parse_mode');
  const explicit = params[textKey === 'text' ? 'entities' : 'caption_entities'];
  const result = parseFormatted(raw, parseMode);
  if (!parseMode && Array.isArray(explicit)) return { text: raw, entities: explicit as TgEntity[] };
  return result;
}

/** reply_parameters (or the older reply_to_message_id) → the id of an existing message in the chat. */
function replyTarget(world: World, chat: TgChat, params: Params): FakeMessage | undefined {
  const parameters = optObject(params, 'reply_parameters');
  const id = parameters ? optInt(parameters, 'message_id') : optInt(params, 'reply_to_message_id');
  if (id === undefined) return undefined;
  const allowMissing = optBool(parameters ?? params, 'allow_sending_without_reply') === true;
  const target = world.store.get(chat.id, id);
  if (target && !target.deleted) return target;
  if (allowMissing) return undefined;
  throw badRequest('message to be replied not found');
}

function baseMessage(
  world: World,
  chat: TgChat,
  params: Params,
): Omit<FakeMessage, 'messageId' | 'date' | 'edits' | 'deleted'> {
  const replyTo = replyTarget(world, chat, params);
  const threadId = optInt(params, 'message_thread_id') ?? replyTo?.threadId;
  const replyMarkup = inlineMarkupOf(params.reply_markup);
  return {
    chatId: chat.id,
    fromBot: true,
    from: world.store.bot,
    sendParams: params,
    ...(threadId !== undefined ? { threadId } : {}),
    ...(replyTo ? { replyToMessageId: replyTo.messageId } : {}),
    ...(replyMarkup ? { reply_markup: replyMarkup } : {}),
  };
}

function sendMessage(world: World, params: Params): unknown {
  const chat = world.store.chatForBot(chatIdOf(params));
  const { text, entities } = formatted(params, 'text');
  if (text.trim() === '') throw badRequest('message text is empty');
  if (text.length > TEXT_LIMIT) throw badRequest('message is too long');
  const parseMode = optString(params, 'parse_mode');
  const message = world.store.addMessage({
    ...baseMessage(world, chat, params),
    text,
    rawText: optString(params, 'text') ?? '',
    ...(parseMode ? { parseMode } : {}),
    entities,
  });
  return world.store.toWire(message);
}

/** The uploaded part, a reused file_id, or a 400 like Telegram's. */
function documentOf(world: World, params: Params): FilePart | FakeFile {
  const value = params.document;
  if (value === undefined) throw badRequest('there is no document in the request');
  if (isFilePart(value)) return value;
  const reference = String(value);
  if (reference.startsWith('attach://')) {
    const part = params[reference.slice('attach://'.length)];
    if (isFilePart(part)) return part;
  } else if (/^https?:\/\//.test(reference)) throw badRequest('failed to get HTTP URL content');
  const known = world.store.file(reference);
  if (known) return known;
  throw badRequest('wrong file identifier/HTTP URL specified');
}

function sendDocument(world: World, params: Params): unknown {
  const chat = world.store.chatForBot(chatIdOf(params));
  const source = documentOf(world, params);
  let file: FakeFile;
  if ('fileId' in source) file = source;
  else {
    if (source.bytes.length > UPLOAD_LIMIT) throw new ApiError(413, 'Request Entity Too Large');
    if (source.bytes.length === 0) throw badRequest('file must be non-empty');
    file = world.store.storeFile(source.filename, source.bytes, undefined);
  }
  const caption = formatted(params, 'caption');
  if (caption.text.length > CAPTION_LIMIT) throw badRequest('message caption is too long');
  const parseMode = optString(params, 'parse_mode');
  const message = world.store.addMessage({
    ...baseMessage(world, chat, params),
    ...(caption.text !== '' ? { caption: caption.text, caption_entities: caption.entities } : {}),
    ...(parseMode ? { parseMode } : {}),
    document: documentFields(file),
  });
  return world.store.toWire(message);
}

function editable(world: World, params: Params): FakeMessage {
  if (params.inline_message_id !== undefined)
    throw badRequest('inline messages are not supported by the fake');
  const chat = world.store.chatForBot(chatIdOf(params), false);
  const messageId = optInt(params, 'message_id');
  if (messageId === undefined) throw badRequest('message identifier is not specified');
  const message = world.store.get(chat.id, messageId);
  if (!message || message.deleted) throw badRequest('message to edit not found');
  if (!message.fromBot) throw badRequest("message can't be edited");
  return message;
}

function applyEdit(
  world: World,
  message: FakeMessage,
  method: 'editMessageText' | 'editMessageReplyMarkup',
): unknown {
  message.editDate = nowSeconds();
  message.edits.push({
    at: Date.now(),
    method,
    ...(message.text !== undefined ? { text: message.text } : {}),
    ...(message.rawText !== undefined ? { rawText: message.rawText } : {}),
    ...(message.reply_markup ? { reply_markup: message.reply_markup } : {}),
  });
  world.store.changed();
  return world.store.toWire(message);
}

/** Like Telegram, an edit without reply_markup removes the inline keyboard. */
function editMessageText(world: World, params: Params): unknown {
  const message = editable(world, params);
  if (message.text === undefined) throw badRequest('there is no text in the message to edit');
  const { text, entities } = formatted(params, 'text');
  if (text.trim() === '') throw badRequest('message text is empty');
  if (text.length > TEXT_LIMIT) throw badRequest('message is too long');
  const replyMarkup = inlineMarkupOf(params.reply_markup);
  const same =
    text === message.text &&
    stable(entities) === stable(message.entities ?? []) &&
    stable(replyMarkup) === stable(message.reply_markup);
  if (same) throw badRequest(NOT_MODIFIED);
  const parseMode = optString(params, 'parse_mode');
  message.text = text;
  message.rawText = optString(params, 'text') ?? '';
  message.entities = entities;
  if (parseMode) message.parseMode = parseMode;
  else delete message.parseMode;
  if (replyMarkup) message.reply_markup = replyMarkup;
  else delete message.reply_markup;
  return applyEdit(world, message, 'editMessageText');
}

function editMessageReplyMarkup(world: World, params: Params): unknown {
  const message = editable(world, params);
  const replyMarkup = inlineMarkupOf(params.reply_markup);
  if (stable(replyMarkup) === stable(message.reply_markup)) throw badRequest(NOT_MODIFIED);
  if (replyMarkup) message.reply_markup = replyMarkup;
  else delete message.reply_markup;
  return applyEdit(world, message, 'editMessageReplyMarkup');
}

function deleteMessage(world: World, params: Params): unknown {
  const chat = world.store.chatForBot(chatIdOf(params), false);
  const message = world.store.get(chat.id, optInt(params, 'message_id') ?? 0);
  if (!message || message.deleted) throw badRequest('message to delete not found');
  message.deleted = true;
  world.store.changed();
  return true;
}

export const METHODS: Record<string, Handler> = {
  ...BOT_METHODS,
  sendMessage,
  editMessageText,
  editMessageReplyMarkup,
  deleteMessage,
  sendDocument,
};

/** Telegram matches method names case-insensitively. */
export const METHOD_NAMES = new Map(Object.keys(METHODS).map((name) => [name.toLowerCase(), name]));
