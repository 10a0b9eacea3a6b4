// REST: channel messages, reactions and typing.
import { notAuthor, unknownChannel, unknownMessage } from './errors.js';
import { createMessage, deleteMessage, editMessage, unarchiveForSend, visibleMessage } from './messages.js';
import { messageWire } from './serialize.js';
import type { FakeDiscordChannel } from './types.js';
import { noContent, ok, route, type RestContext, type Route } from './wire.js';
import type { MessageRecord } from './world.js';

function channelOf(ctx: RestContext): FakeDiscordChannel {
  const channel = ctx.world.channel(ctx.params['channelId'] ?? '');
  if (!channel) throw unknownChannel();
  return channel;
}

function messageOf(ctx: RestContext): MessageRecord {
  const channel = channelOf(ctx);
  const message = visibleMessage(ctx.world, channel.id, ctx.params['messageId'] ?? '');
  if (!message || (message.flags ?? 0) & 64) throw unknownMessage();
  return message;
}

function send(ctx: RestContext) {
  const channel = channelOf(ctx);
  unarchiveForSend(ctx.world, channel);
  const { world } = ctx;
  const message = createMessage(world, channel, ctx.payload ?? {}, ctx.files, {
    author: world.bot,
    fromBot: true,
  });
  return ok(messageWire(world, message));
}

/** Newest first; `limit` 1–100 (default 50), `before` / `after` by id. */
function list(ctx: RestContext) {
  const channel = channelOf(ctx);
  const limit = Math.min(100, Math.max(1, Number(ctx.query.get('limit') ?? 50)));
  const before = ctx.query.get('before');
  const after = ctx.query.get('after');
  const messages = ctx.world.messages
    .filter((m) => m.channelId === channel.id && !m.deleted && !((m.flags ?? 0) & 64))
    .filter((m) => (before ? BigInt(m.id) < BigInt(before) : true))
    .filter((m) => (after ? BigInt(m.id) > BigInt(after) : true));
  const page = after ? messages.slice(0, limit) : messages.slice(-limit);
  return ok(page.reverse().map((m) => messageWire(ctx.world, m)));
}

function edit(ctx: RestContext) {
  const message = messageOf(ctx);
  const payload = ctx.payload ?? {};
  const touchesContent = ['content', 'embeds', 'components', 'attachments'].some((key) => key in payload);
  if (!message.fromBot && (touchesContent || ctx.files.length)) throw notAuthor();
  editMessage(ctx.world, message, payload, ctx.files);
  return ok(messageWire(ctx.world, message));
}

function react(ctx: RestContext, add: boolean) {
  const message = messageOf(ctx);
  const emoji = decodeURIComponent(ctx.params['emoji'] ?? '');
  const at = message.reactions.indexOf(emoji);
  if (add && at < 0) message.reactions.push(emoji);
  if (!add && at >= 0) message.reactions.splice(at, 1);
  ctx.world.changed();
  return noContent();
}

export const messageRoutes: Route[] = [
  route('POST', '/channels/:channelId/messages', send),
  route('GET', '/channels/:channelId/messages', list),
  route('GET', '/channels/:channelId/messages/:messageId', (ctx) =>
    ok(messageWire(ctx.world, messageOf(ctx))),
  ),
  route('PATCH', '/channels/:channelId/messages/:messageId', edit),
  route('DELETE', '/channels/:channelId/messages/:messageId', (ctx) => {
    deleteMessage(ctx.world, messageOf(ctx));
    return noContent();
  }),
  route('PUT', '/channels/:channelId/messages/:messageId/reactions/:emoji/@me', (ctx) => react(ctx, true)),
  route('DELETE', '/channels/:channelId/messages/:messageId/reactions/:emoji/@me', (ctx) =>
    react(ctx, false),
  ),
  route('POST', '/channels/:channelId/typing', (ctx) => {
    channelOf(ctx);
    return noContent();
  }),
];
