// The Web API methods the fake knows, with Slack's errors (`{ ok: false, error }` with HTTP 200).
import { BlocksError, blocksLength, checkBlocks, isObject } from './blocks.js';
import { eventCallback, fileObject, messageEvent } from './events.js';
import type { FakeSlackMessage, Json } from './types.js';
import { APP_ID, BOT_ID, BOT_USER_ID, TEAM_ID, type World } from './world.js';

export class SlackApiError extends Error {
  constructor(
    readonly code: string,
    readonly extra: Json = {},
  ) {
    super(code);
  }
}

export interface MethodContext {
  world: World;
  params: Json;
  /** A new socket URL (apps.connections.open). */
  socketUrl(): string;
}

export type Method = { token: 'bot' | 'app'; run: (ctx: MethodContext) => Json };

const fail = (code: string, extra: Json = {}): never => {
  throw new SlackApiError(code, extra);
};

function str(params: Json, key: string, required = true): string {
  const value = params[key];
  if (value === undefined || value === null || value === '')
    return required ? fail(`missing_argument`, { argument: key }) : '';
  return String(value);
}

/** web-api sends nested values (blocks, view, files) as JSON strings in a form: both shapes are taken. */
function structured(params: Json, key: string): unknown {
  const value = params[key];
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return fail('invalid_arguments', { argument: key });
  }
}

function conversation(world: World, id: string): { id: string; botMember: boolean } {
  if (/^[UW]/.test(id)) return world.im(id); // a user id posts to the bot's DM with them
  const channel = world.channels.get(id);
  if (!channel) return fail('channel_not_found');
  return channel;
}

function content(world: World, params: Json): { text: string; blocks: Json[] } {
  const text = params['text'] === undefined ? '' : String(params['text']);
  const raw = structured(params, 'blocks');
  let blocks: Json[] = [];
  if (raw !== undefined && raw !== null && raw !== '') {
    try {
      blocks = checkBlocks(raw, 'message');
    } catch (error) {
      if (error instanceof BlocksError) fail('invalid_blocks', { errors: error.errors });
      throw error;
    }
  }
  if (!text && blocks.length === 0) fail('no_text');
  if ([...text].length > world.textLimit) fail('msg_too_long');
  if (blocksLength(blocks) > world.blocksCharLimit) fail('msg_blocks_too_long');
  return { text, blocks };
}

function threadOf(world: World, channel: string, params: Json): string | undefined {
  const threadTs = params['thread_ts'] ? String(params['thread_ts']) : undefined;
  if (threadTs && !world.message(channel, threadTs)) fail('thread_not_found');
  return threadTs;
}

function post(world: World, params: Json): FakeSlackMessage {
  const channel = conversation(world, str(params, 'channel'));
  if (!channel.botMember) fail('not_in_channel');
  const body = content(world, params);
  const threadTs = threadOf(world, channel.id, params);
  const message = world.botMessage(channel.id, { ...body, ...(threadTs ? { threadTs } : {}), via: 'api' });
  world.deliver('events_api', eventCallback(world, messageEvent(world, message)));
  return message;
}

function ownMessage(world: World, params: Json): FakeSlackMessage {
  const channel = conversation(world, str(params, 'channel'));
  const message = world.message(channel.id, str(params, 'ts'));
  if (!message || message.deleted) return fail('message_not_found');
  if (!message.fromBot) return fail('cant_update_message');
  return message;
}

function view(world: World, params: Json, surface: 'modal' | 'home'): Json {
  const value = structured(params, 'view');
  if (!isObject(value) || value['type'] !== surface) return fail('invalid_arguments', { argument: 'view' });
  const errors: string[] = [];
  try {
    checkBlocks(value['blocks'], surface);
  } catch (error) {
    if (!(error instanceof BlocksError)) throw error;
    errors.push(...error.errors);
  }
  if (surface === 'modal') {
    for (const key of ['title', 'submit', 'close']) {
      const text = value[key];
      if (key !== 'title' && text === undefined) continue;
      if (!isObject(text) || typeof text['text'] !== 'string' || [...text['text']].length > 24)
        errors.push(`must be a plain_text of at most 24 characters [json-pointer:/view/${key}]`);
    }
    if (String(value['private_metadata'] ?? '').length > 3_000)
      errors.push('must be at most 3000 characters [json-pointer:/view/private_metadata]');
    if (String(value['callback_id'] ?? '').length > 255)
      errors.push('must be at most 255 characters [json-pointer:/view/callback_id]');
  }
  if (errors.length > 0) fail('invalid_arguments', { response_metadata: { messages: errors } });
  return value;
}

export const METHODS: Record<string, Method> = {
  'auth.test': {
    token: 'bot',
    run: ({ world }) => ({
      url: `${world.baseUrl}/`,
      team: 'Fake Team',
      user: 'agent-bridge',
      team_id: TEAM_ID,
      user_id: BOT_USER_ID,
      bot_id: BOT_ID,
      is_enterprise_install: false,
    }),
  },
  'apps.connections.open': { token: 'app', run: ({ socketUrl }) => ({ url: socketUrl() }) },
  'chat.postMessage': {
    token: 'bot',
    run: ({ world, params }) => {
      const message = post(world, params);
      return {
        channel: message.channel,
        ts: message.ts,
        message: { text: message.text, ts: message.ts, bot_id: BOT_ID },
      };
    },
  },
  'chat.update': {
    token: 'bot',
    run: ({ world, params }) => {
      const message = ownMessage(world, params);
      const body = content(world, params);
      message.text = body.text;
      message.blocks = body.blocks;
      message.edits += 1;
      world.changed();
      world.deliver(
        'events_api',
        eventCallback(world, {
          type: 'message',
          subtype: 'message_changed',
          channel: message.channel,
          hidden: true,
          ts: world.nextTs(),
          message: { type: 'message', ts: message.ts, text: message.text, user: BOT_USER_ID, bot_id: BOT_ID },
        }),
      );
      return { channel: message.channel, ts: message.ts, text: message.text };
    },
  },
  'chat.delete': {
    token: 'bot',
    run: ({ world, params }) => {
      const message = ownMessage(world, params);
      message.deleted = true;
      world.changed();
      return { channel: message.channel, ts: message.ts };
    },
  },
  'chat.postEphemeral': {
    token: 'bot',
    run: ({ world, params }) => {
      const channel = conversation(world, str(params, 'channel'));
      const user = str(params, 'user');
      if (!/^[UW][A-Z0-9]+$/.test(user)) fail('user_not_found');
      if (channel.id.startsWith('D') && world.channels.get(channel.id)?.imUser !== user)
        fail('user_not_in_channel');
      const body = content(world, params);
      const threadTs = params['thread_ts'] ? String(params['thread_ts']) : undefined;
      const message = world.botMessage(channel.id, {
        ...body,
        ...(threadTs ? { threadTs } : {}),
        ephemeralFor: user,
        via: 'api',
      });
      return { message_ts: message.ts };
    },
  },
  'conversations.open': {
    token: 'bot',
    run: ({ world, params }) => {
      const users = str(params, 'users').split(',');
      if (users.length !== 1 || !/^[UW][A-Z0-9]+$/.test(users[0]!)) return fail('user_not_found');
      return { channel: { id: world.im(users[0]!).id } };
    },
  },
  'conversations.info': {
    token: 'bot',
    run: ({ world, params }) => {
      const channel = conversation(world, str(params, 'channel'));
      const stored = world.channels.get(channel.id)!;
      return {
        channel: {
          id: stored.id,
          name: stored.name,
          is_channel: stored.type === 'channel',
          is_group: stored.type === 'group',
          is_im: stored.type === 'im',
          is_member: stored.botMember,
          ...(stored.imUser ? { user: stored.imUser } : {}),
        },
      };
    },
  },
  'users.info': {
    token: 'bot',
    run: ({ world, params }) => {
      const id = str(params, 'user');
      const user = world.users.get(id) ?? fail('user_not_found');
      return {
        user: { id: user.id, name: user.name, real_name: user.name, is_bot: user.bot, team_id: TEAM_ID },
      };
    },
  },
  'views.open': {
    token: 'bot',
    run: ({ world, params }) => {
      const trigger = world.triggers.get(str(params, 'trigger_id'));
      if (!trigger) return fail('invalid_trigger_id');
      if (trigger.used || Date.now() - trigger.at > world.triggerTtlMs) return fail('expired_trigger_id');
      const value = view(world, params, 'modal');
      trigger.used = true;
      const id = world.id('V');
      world.views.set(id, { id, type: 'modal', user: trigger.user, view: value, closed: false });
      world.changed();
      return { view: { ...value, id, team_id: TEAM_ID, app_id: APP_ID } };
    },
  },
  'views.publish': {
    token: 'bot',
    run: ({ world, params }) => {
      const user = str(params, 'user_id');
      const value = view(world, params, 'home');
      const id = world.id('V');
      world.views.set(id, { id, type: 'home', user, view: value, closed: false });
      world.homes.set(user, { ...value, id });
      world.changed();
      return { view: { ...value, id, team_id: TEAM_ID, app_id: APP_ID } };
    },
  },
  'files.getUploadURLExternal': {
    token: 'bot',
    run: ({ world, params }) => {
      const filename = str(params, 'filename');
      const length = Number(str(params, 'length'));
      if (!Number.isInteger(length) || length < 0) return fail('invalid_arguments', { argument: 'length' });
      const id = world.id('F');
      world.uploads.set(id, { filename, length });
      return { upload_url: `${world.baseUrl}/upload/${id}`, file_id: id };
    },
  },
  'files.completeUploadExternal': {
    token: 'bot',
    run: ({ world, params }) => completeUploads(world, params),
  },
};

function completeUploads(world: World, params: Json): Json {
  const entries = structured(params, 'files');
  if (!Array.isArray(entries) || entries.length === 0)
    return fail('invalid_arguments', { argument: 'files' });
  const files = entries.map((entry: unknown) => {
    const id = isObject(entry) ? String(entry['id']) : '';
    const upload = world.uploads.get(id);
    if (!upload?.data) return fail('file_not_found');
    if (upload.data.length !== upload.length) return fail('file_upload_size_mismatch');
    world.uploads.delete(id);
    const title = isObject(entry) && entry['title'] ? String(entry['title']) : upload.filename;
    const file = {
      id,
      name: upload.filename,
      title,
      size: upload.data.length,
      data: upload.data,
      mimetype: 'application/octet-stream',
      urlPrivateDownload: `${world.baseUrl}/files-pri/${TEAM_ID}-${id}/download/${encodeURIComponent(upload.filename)}`,
      uploadedBy: BOT_USER_ID,
    };
    world.files.set(id, file);
    return file;
  });
  const channelId = params['channel_id'] ? String(params['channel_id']) : '';
  if (channelId) {
    const channel = conversation(world, channelId);
    if (!channel.botMember) fail('not_in_channel');
    const threadTs = threadOf(world, channel.id, params);
    const comment = params['initial_comment'] ? String(params['initial_comment']) : '';
    if ([...comment].length > world.textLimit) fail('msg_too_long');
    world.botMessage(channel.id, { text: comment, ...(threadTs ? { threadTs } : {}), files, via: 'api' });
  }
  return { files: files.map((f) => ({ ...fileObject(f), title: f.title })) };
}
