// REST: gateway info, users, the application, the guild, channels and threads.
import { ApiError, FormErrors, unknownChannel, unknownMessage, unknownUser } from './errors.js';
import { channelWire, guildWire, memberWire, userWire } from './serialize.js';
import type { FakeDiscordChannel, Json } from './types.js';
import { noContent, ok, route, type Reply, type RestContext, type Route } from './wire.js';
import type { World } from './world.js';

export function gatewayUrl(world: World, path = '/gateway'): string {
  return `${world.baseUrl.replace(/^http/, 'ws')}${path}`;
}

function guildOf(ctx: RestContext): World['guild'] {
  if (ctx.params['guildId'] !== ctx.world.guild.id) throw new ApiError(404, 10004, 'Unknown Guild');
  return ctx.world.guild;
}

function channelOf(ctx: RestContext): FakeDiscordChannel {
  const channel = ctx.world.channel(ctx.params['channelId'] ?? '');
  if (!channel) throw unknownChannel();
  return channel;
}

function openDm(ctx: RestContext): Reply {
  const { world } = ctx;
  const recipientId = String(ctx.payload?.['recipient_id'] ?? '');
  const user = world.users.get(recipientId);
  if (!user) throw unknownUser();
  const existing = [...world.channels.values()].find((c) => c.type === 1 && c.recipientId === recipientId);
  const channel = existing ?? world.addChannel({ name: user.username, type: 'dm' });
  channel.recipientId = recipientId;
  return ok(channelWire(world, channel));
}

/** PATCH: name, archived, locked, auto_archive_duration; THREAD_UPDATE (or CHANNEL_UPDATE) follows. */
function patchChannel(ctx: RestContext): Reply {
  const { world } = ctx;
  const channel = channelOf(ctx);
  const payload = ctx.payload ?? {};
  const errors = new FormErrors();
  errors.maxLength(['name'], payload['name'], 100);
  errors.throwIfAny();
  if (typeof payload['name'] === 'string') channel.name = payload['name'];
  if (world.isThread(channel)) {
    if (typeof payload['archived'] === 'boolean' && payload['archived'] !== channel.archived) {
      channel.archived = payload['archived'];
      channel.archivedAt = Date.now();
    }
    if (typeof payload['locked'] === 'boolean') channel.locked = payload['locked'];
    if (typeof payload['auto_archive_duration'] === 'number')
      channel.autoArchiveDuration = payload['auto_archive_duration'];
  }
  world.changed();
  world.dispatch(world.isThread(channel) ? 'THREAD_UPDATE' : 'CHANNEL_UPDATE', channelWire(world, channel));
  return ok(channelWire(world, channel));
}

function deleteChannel(ctx: RestContext): Reply {
  const { world } = ctx;
  const channel = channelOf(ctx);
  channel.deleted = true;
  world.changed();
  if (world.isThread(channel))
    world.dispatch('THREAD_DELETE', {
      id: channel.id,
      guild_id: channel.guildId,
      parent_id: channel.parentId,
      type: channel.type,
    });
  else world.dispatch('CHANNEL_DELETE', channelWire(world, channel));
  return ok(channelWire(world, channel));
}

/** Bot-started threads: in a channel (type from the body, default private as in API v10) or from a message. */
function startThread(ctx: RestContext, fromMessage: boolean): Reply {
  const { world } = ctx;
  const parent = channelOf(ctx);
  const payload = ctx.payload ?? {};
  const errors = new FormErrors();
  if (typeof payload['name'] !== 'string' || payload['name'] === '')
    errors.add(['name'], 'BASE_TYPE_REQUIRED', 'This field is required');
  errors.maxLength(['name'], payload['name'], 100);
  errors.throwIfAny();
  if (parent.type !== 0) throw new ApiError(400, 50024, 'Cannot execute action on this channel type');
  const message = fromMessage ? world.message(ctx.params['messageId'] ?? '') : undefined;
  if (fromMessage && (!message || message.deleted || message.channelId !== parent.id)) throw unknownMessage();
  if (message && world.channels.has(message.id))
    throw new ApiError(400, 160004, 'A thread has already been created for this message');
  const thread = world.addThread(
    {
      parentId: parent.id,
      name: String(payload['name']),
      ...(message ? { id: message.id } : { private: Number(payload['type'] ?? 12) === 12 }),
    },
    world.bot.id,
  );
  if (typeof payload['auto_archive_duration'] === 'number')
    thread.autoArchiveDuration = payload['auto_archive_duration'];
  if (message) message.flags = (message.flags ?? 0) | 32;
  world.dispatch('THREAD_CREATE', { ...channelWire(world, thread), newly_created: true });
  return { status: 201, body: channelWire(world, thread) };
}

function application(world: World): Json {
  return {
    id: world.applicationId,
    name: world.bot.username,
    icon: null,
    description: '',
    bot_public: false,
    bot_require_code_grant: false,
    verify_key: '0'.repeat(64),
    flags: 0,
    team: null,
    owner: userWire(world.users.get(world.guild.ownerId) ?? world.bot),
    bot: userWire(world.bot),
  };
}

export const channelRoutes: Route[] = [
  route('GET', '/gateway', (ctx) => ok({ url: gatewayUrl(ctx.world) }), false),
  route('GET', '/gateway/bot', (ctx) =>
    ok({
      url: gatewayUrl(ctx.world),
      shards: 1,
      session_start_limit: { total: 1000, remaining: 999, reset_after: 14_400_000, max_concurrency: 1 },
    }),
  ),
  route('GET', '/users/@me', (ctx) =>
    ok({ ...userWire(ctx.world.bot), verified: true, mfa_enabled: false, locale: 'en-US', email: null }),
  ),
  route('POST', '/users/@me/channels', openDm),
  route('GET', '/users/:userId', (ctx) => {
    const user = ctx.world.users.get(ctx.params['userId'] ?? '');
    if (!user) throw unknownUser();
    return ok(userWire(user));
  }),
  route('GET', '/applications/@me', (ctx) => ok(application(ctx.world))),
  route('GET', '/oauth2/applications/@me', (ctx) => ok(application(ctx.world))),
  route('GET', '/guilds/:guildId', (ctx) => (guildOf(ctx), ok(guildWire(ctx.world)))),
  route('GET', '/guilds/:guildId/channels', (ctx) => {
    guildOf(ctx);
    const live = [...ctx.world.channels.values()].filter((c) => !c.deleted && c.type === 0);
    return ok(live.map((c) => channelWire(ctx.world, c)));
  }),
  route('GET', '/guilds/:guildId/threads/active', (ctx) => {
    guildOf(ctx);
    const live = [...ctx.world.channels.values()].filter(
      (c) => !c.deleted && ctx.world.isThread(c) && !c.archived,
    );
    return ok({ threads: live.map((c) => channelWire(ctx.world, c)), members: [] });
  }),
  route('GET', '/guilds/:guildId/members/:userId', (ctx) => {
    guildOf(ctx);
    const user = ctx.world.users.get(ctx.params['userId'] ?? '');
    if (!user) throw new ApiError(404, 10007, 'Unknown Member');
    return ok(memberWire(ctx.world, user, true));
  }),
  route('GET', '/channels/:channelId', (ctx) => ok(channelWire(ctx.world, channelOf(ctx)))),
  route('PATCH', '/channels/:channelId', patchChannel),
  route('DELETE', '/channels/:channelId', deleteChannel),
  route('POST', '/channels/:channelId/threads', (ctx) => startThread(ctx, false)),
  route('POST', '/channels/:channelId/messages/:messageId/threads', (ctx) => startThread(ctx, true)),
  route('PUT', '/channels/:channelId/thread-members/@me', (ctx) => (channelOf(ctx), noContent())),
  route('DELETE', '/channels/:channelId/thread-members/@me', (ctx) => (channelOf(ctx), noContent())),
];
