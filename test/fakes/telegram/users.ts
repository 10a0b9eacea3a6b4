// Simulated users: their actions become stored messages and queued updates.
import { commandEntities } from './entities.js';
import { hasButton } from './markup.js';
import { documentFields } from './state.js';
import type { World } from './world.js';
import type { UserClosesTopic, UserDocument, UserPress, UserText } from './types.js';

export interface SentByUser {
  updateId: number;
  messageId: number;
}

function replyAndThread(
  world: World,
  chatId: number,
  replyToMessageId: number | undefined,
  threadId: number | undefined,
): { replyToMessageId?: number; threadId?: number } {
  const replied = replyToMessageId === undefined ? undefined : world.store.get(chatId, replyToMessageId);
  if (replyToMessageId !== undefined && (!replied || replied.deleted))
    throw new Error(`chat ${chatId} has no message ${replyToMessageId} to reply to`);
  const thread = threadId ?? replied?.threadId;
  return {
    ...(replied ? { replyToMessageId: replied.messageId } : {}),
    ...(thread !== undefined ? { threadId: thread } : {}),
  };
}

export function userSendsText(world: World, input: UserText): SentByUser {
  const chat = world.store.chatForUser(input);
  const from = world.store.userFor(input);
  const message = world.store.addMessage({
    chatId: chat.id,
    fromBot: false,
    from,
    text: input.text,
    entities: commandEntities(input.text),
    ...replyAndThread(world, chat.id, input.replyToMessageId, input.threadId),
  });
  const update = world.updates.push({ message: world.store.toWire(message) });
  return { updateId: update.update_id, messageId: message.messageId };
}

/** Someone closes a forum topic: a `forum_topic_closed` service message in it. */
export function userClosesTopic(world: World, input: UserClosesTopic): SentByUser {
  const chat = world.store.chatForUser(input);
  const message = world.store.addMessage({
    chatId: chat.id,
    fromBot: false,
    from: world.store.userFor(input),
    forumTopicClosed: true,
    ...replyAndThread(world, chat.id, undefined, input.threadId),
  });
  const update = world.updates.push({ message: world.store.toWire(message) });
  return { updateId: update.update_id, messageId: message.messageId };
}

export function userSendsDocument(world: World, input: UserDocument): SentByUser & { fileId: string } {
  const chat = world.store.chatForUser(input);
  const from = world.store.userFor(input);
  const bytes =
    typeof input.bytes === 'string'
      ? Buffer.from(input.bytes)
      : Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength);
  const file = world.store.storeFile(input.fileName, bytes, input.mimeType);
  const message = world.store.addMessage({
    chatId: chat.id,
    fromBot: false,
    from,
    ...(input.caption !== undefined ? { caption: input.caption, caption_entities: [] } : {}),
    document: documentFields(file),
    ...replyAndThread(world, chat.id, undefined, input.threadId),
  });
  const update = world.updates.push({ message: world.store.toWire(message) });
  return { updateId: update.update_id, messageId: message.messageId, fileId: file.fileId };
}

let callbackCounter = 0;

export function userPressesButton(
  world: World,
  input: UserPress,
): { updateId: number; callbackQueryId: string } {
  const chat = world.store.chatForUser(input);
  const from = world.store.userFor(input);
  const message = world.store.get(chat.id, input.messageId);
  if (!message || message.deleted)
    throw new Error(`chat ${chat.id} has no message ${input.messageId} to press`);
  if (!input.force && !hasButton(message.reply_markup, input.data))
    throw new Error(
      `message ${input.messageId} in chat ${chat.id} shows no button with callback_data ${JSON.stringify(input.data)}` +
        ` (buttons: ${JSON.stringify(message.reply_markup?.inline_keyboard ?? [])}); pass force: true to press anyway`,
    );
  const callbackQueryId = `${world.store.bot.id}${String(++callbackCounter).padStart(9, '0')}`;
  world.callbackQueries.set(callbackQueryId, false);
  const update = world.updates.push({
    callback_query: {
      id: callbackQueryId,
      from,
      message: world.store.toWire(message),
      chat_instance: `-${Math.abs(chat.id * 7919) % 1_000_000_007}`,
      data: input.data,
    },
  });
  return { updateId: update.update_id, callbackQueryId };
}
