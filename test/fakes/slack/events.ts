// The payloads Slack sends over the socket: Events API callbacks, block_actions, view_submission, commands.
import type { FakeSlackMessage, FakeSlackFile, Json } from './types.js';
import { APP_ID, BOT_ID, BOT_USER_ID, TEAM_ID, type World } from './world.js';

/** An Events API callback around `event` (what socket-mode hands Bolt as the envelope's payload). */
export function eventCallback(world: World, event: Json): Json {
  return {
    token: 'fake-verification-token',
    team_id: TEAM_ID,
    api_app_id: APP_ID,
    event: { event_ts: event['ts'] ?? world.nextTs(), ...event },
    type: 'event_callback',
    event_id: world.id('Ev'),
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [
      {
        enterprise_id: null,
        team_id: TEAM_ID,
        user_id: BOT_USER_ID,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: false,
  };
}

export function channelType(world: World, channel: string): string {
  const type = world.channels.get(channel)?.type;
  return type === 'im' ? 'im' : type === 'group' ? 'group' : 'channel';
}

/** A message event as Slack sends it for a message someone (or the bot) posted. */
export function messageEvent(world: World, message: FakeSlackMessage): Json {
  return {
    type: 'message',
    channel: message.channel,
    channel_type: channelType(world, message.channel),
    user: message.user,
    text: message.text,
    ts: message.ts,
    team: TEAM_ID,
    ...(message.blocks.length ? { blocks: message.blocks } : {}),
    ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
    ...(message.fromBot ? { bot_id: BOT_ID, app_id: APP_ID } : {}),
    ...(message.files.length
      ? { subtype: 'file_share', files: message.files.map((f) => fileObject(f)), upload: false }
      : {}),
  };
}

export function fileObject(file: FakeSlackFile): Json {
  return {
    id: file.id,
    name: file.name,
    title: file.title,
    mimetype: file.mimetype,
    filetype: file.name.split('.').pop() ?? 'binary',
    size: file.size,
    user: file.uploadedBy,
    mode: 'hosted',
    url_private: file.urlPrivateDownload.replace('/download/', '/'),
    url_private_download: file.urlPrivateDownload,
  };
}

export function userObject(world: World, id: string): Json {
  const user = world.user(id);
  return { id: user.id, username: user.name, name: user.name, team_id: TEAM_ID };
}

export function messageForPayload(message: FakeSlackMessage): Json {
  return {
    type: 'message',
    ts: message.ts,
    text: message.text,
    user: message.user,
    ...(message.fromBot ? { bot_id: BOT_ID, app_id: APP_ID } : {}),
    blocks: message.blocks,
    ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
  };
}
