// Bot API methods that neither send nor change messages.
import { stable } from './markup.js';
import type { Handler, World } from './world.js';
import { badRequest, chatIdOf, optBool, optInt, optString, type Params } from './wire.js';

/** Bots may download files up to 20 MB. */
export const DOWNLOAD_LIMIT = 20 * 1024 * 1024;
const CHAT_ACTIONS = new Set([
  'typing',
  'upload_photo',
  'record_video',
  'upload_video',
  'record_voice',
  'upload_voice',
  'upload_document',
  'choose_sticker',
  'find_location',
  'record_video_note',
  'upload_video_note',
]);

function answerCallbackQuery(world: World, params: Params): unknown {
  const id = optString(params, 'callback_query_id') ?? '';
  if (world.callbackQueries.get(id) !== false)
    throw badRequest('query is too old and response timeout expired or query ID is invalid');
  world.callbackQueries.set(id, true);
  const text = optString(params, 'text');
  const showAlert = optBool(params, 'show_alert');
  const url = optString(params, 'url');
  const cacheTime = optInt(params, 'cache_time');
  world.callbackAnswers.push({
    callbackQueryId: id,
    at: Date.now(),
    ...(text !== undefined ? { text } : {}),
    ...(showAlert !== undefined ? { showAlert } : {}),
    ...(url !== undefined ? { url } : {}),
    ...(cacheTime !== undefined ? { cacheTime } : {}),
  });
  return true;
}

function sendChatAction(world: World, params: Params): unknown {
  world.store.chatForBot(chatIdOf(params));
  if (!CHAT_ACTIONS.has(optString(params, 'action') ?? ''))
    throw badRequest('wrong parameter action in request');
  return true;
}

function getFile(world: World, params: Params): unknown {
  const file = world.store.file(optString(params, 'file_id') ?? '');
  if (!file) throw badRequest('invalid file_id');
  if (file.size > DOWNLOAD_LIMIT) throw badRequest('file is too big');
  return {
    file_id: file.fileId,
    file_unique_id: file.fileUniqueId,
    file_size: file.size,
    file_path: file.filePath,
  };
}

function commandsKey(params: Params): string {
  return `${stable(params.scope ?? { type: 'default' })}|${optString(params, 'language_code') ?? ''}`;
}

function setMyCommands(world: World, params: Params): unknown {
  const commands = params.commands;
  if (!Array.isArray(commands) || commands.length > 100)
    throw badRequest('commands must be an array of at most 100');
  for (const entry of commands as Array<Record<string, unknown>>) {
    if (typeof entry.command !== 'string' || !/^[a-z0-9_]{1,32}$/.test(entry.command))
      throw badRequest('BOT_COMMAND_INVALID');
    if (
      typeof entry.description !== 'string' ||
      entry.description.length < 1 ||
      entry.description.length > 256
    )
      throw badRequest('BOT_COMMAND_DESCRIPTION_INVALID');
  }
  world.commands.set(commandsKey(params), commands);
  return true;
}

export const BOT_METHODS: Record<string, Handler> = {
  getMe: (world) => world.store.bot,
  logOut: () => true,
  deleteWebhook: (world, params) => {
    if (optBool(params, 'drop_pending_updates')) world.updates.drop();
    return true;
  },
  getWebhookInfo: (world) => ({
    url: '',
    has_custom_certificate: false,
    pending_update_count: world.updates.pending().length,
  }),
  setMyCommands,
  getMyCommands: (world, params) => world.commands.get(commandsKey(params)) ?? [],
  deleteMyCommands: (world, params) => world.commands.delete(commandsKey(params)) || true,
  answerCallbackQuery,
  sendChatAction,
  getFile,
};
