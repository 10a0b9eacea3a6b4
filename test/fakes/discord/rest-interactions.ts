// REST: interaction callbacks and the interaction webhook (follow-ups, @original).
import {
  alreadyAcknowledged,
  ApiError,
  unknownChannel,
  unknownInteraction,
  unknownMessage,
  unknownWebhook,
} from './errors.js';
import { createMessage, deleteMessage, editMessage, EPHEMERAL, LOADING } from './messages.js';
import { messageWire } from './serialize.js';
import type { FakeDiscordChannel, Json } from './types.js';
import { checkModal } from './validate.js';
import { noContent, ok, route, type Reply, type RestContext, type Route } from './wire.js';
import type { InteractionRecord, MessageRecord, World } from './world.js';

/** Follow-ups and @original edits work for 15 minutes after the interaction, as on Discord. */
const TOKEN_LIFETIME_MS = 15 * 60_000;

function invalidType(type: unknown): ApiError {
  return new ApiError(400, 50035, 'Invalid Form Body', {
    type: {
      _errors: [
        {
          code: 'INTERACTION_RESPONSE_TYPE_INVALID',
          message: `Interaction response type ${String(type)} is not valid here`,
        },
      ],
    },
  });
}

function channelFor(world: World, interaction: InteractionRecord): FakeDiscordChannel {
  const channel = world.channel(interaction.channelId);
  if (!channel) throw unknownChannel();
  return channel;
}

function componentMessage(world: World, interaction: InteractionRecord, type: number): MessageRecord {
  const message = interaction.messageId ? world.message(interaction.messageId) : undefined;
  if (!interaction.messageId) throw invalidType(type);
  if (!message || message.deleted) throw unknownMessage();
  return message;
}

/** Carries out one callback type; returns the message it made or touched (the new `@original`). */
function respond(
  ctx: RestContext,
  interaction: InteractionRecord,
  type: number,
  data: Json,
): MessageRecord | undefined {
  const { world } = ctx;
  const origin = {
    author: world.bot,
    fromBot: true,
    webhookId: world.applicationId,
    interactionId: interaction.id,
  };
  switch (type) {
    case 4:
      return createMessage(world, channelFor(world, interaction), data, ctx.files, origin);
    case 5:
      return createMessage(
        world,
        channelFor(world, interaction),
        { flags: Number(data['flags'] ?? 0) & EPHEMERAL },
        [],
        {
          ...origin,
          loading: true,
        },
      );
    case 6:
      return componentMessage(world, interaction, type);
    case 7: {
      const message = componentMessage(world, interaction, type);
      editMessage(world, message, data, ctx.files);
      return message;
    }
    case 9:
      if (interaction.type === 5) throw invalidType(type);
      checkModal(data);
      world.modals.set(String(data['custom_id']), data);
      return undefined;
    default:
      throw invalidType(type);
  }
}

/** POST /interactions/:id/:token/callback: once per interaction, within `interactionAckMs`. */
function callback(ctx: RestContext): Reply {
  const { world } = ctx;
  const interaction = world.interactions.get(ctx.params['interactionId'] ?? '');
  if (!interaction || interaction.token !== ctx.params['token']) throw unknownInteraction();
  if (interaction.acknowledged) throw alreadyAcknowledged();
  if (Date.now() - interaction.createdAt > world.interactionAckMs) throw unknownInteraction();
  const type = Number(ctx.payload?.['type']);
  const data = (ctx.payload?.['data'] ?? {}) as Json;
  const message = respond(ctx, interaction, type, data);
  interaction.acknowledged = true;
  interaction.responseType = type;
  if (message) interaction.originalId = message.id;
  world.interactionResponses.push({
    interactionId: interaction.id,
    type,
    ...(ctx.payload?.['data'] !== undefined ? { data } : {}),
    at: Date.now(),
  });
  world.changed();
  if (ctx.query.get('with_response') !== 'true') return noContent();
  return ok({
    interaction: {
      id: interaction.id,
      type: interaction.type,
      response_message_id: message?.id,
      response_message_loading: type === 5,
      response_message_ephemeral: Boolean((message?.flags ?? 0) & EPHEMERAL),
    },
    resource: { type, ...(message && type !== 6 ? { message: messageWire(world, message) } : {}) },
  });
}

function webhookInteraction(ctx: RestContext): InteractionRecord {
  const { world } = ctx;
  if (ctx.params['applicationId'] !== world.applicationId) throw unknownWebhook();
  const interaction = world.interactionByToken(ctx.params['token'] ?? '');
  if (!interaction || !interaction.acknowledged) throw unknownWebhook();
  if (Date.now() - interaction.createdAt > TOKEN_LIFETIME_MS) throw unknownWebhook();
  return interaction;
}

function webhookMessage(ctx: RestContext): MessageRecord {
  const interaction = webhookInteraction(ctx);
  const requested = ctx.params['messageId'];
  const id = requested === '@original' ? interaction.originalId : requested;
  const message = id ? ctx.world.message(id) : undefined;
  const ours = message && (message.id === interaction.originalId || message.interactionId === interaction.id);
  if (!message || message.deleted || !ours) throw unknownMessage();
  return message;
}

/** A follow-up; the first one after a deferred reply (type 5) fills the loading message instead. */
function followUp(ctx: RestContext): Reply {
  const { world } = ctx;
  const interaction = webhookInteraction(ctx);
  const original = interaction.originalId ? world.message(interaction.originalId) : undefined;
  let message: MessageRecord;
  if (original && !original.deleted && (original.flags ?? 0) & LOADING) {
    editMessage(world, original, ctx.payload ?? {}, ctx.files);
    message = original;
  } else {
    message = createMessage(world, channelFor(world, interaction), ctx.payload ?? {}, ctx.files, {
      author: world.bot,
      fromBot: true,
      webhookId: world.applicationId,
      interactionId: interaction.id,
    });
  }
  return ctx.query.get('wait') === 'true' ? ok(messageWire(world, message)) : noContent();
}

export const interactionRoutes: Route[] = [
  route('POST', '/interactions/:interactionId/:token/callback', callback, false),
  route('POST', '/webhooks/:applicationId/:token', followUp, false),
  route(
    'GET',
    '/webhooks/:applicationId/:token/messages/:messageId',
    (ctx) => ok(messageWire(ctx.world, webhookMessage(ctx))),
    false,
  ),
  route(
    'PATCH',
    '/webhooks/:applicationId/:token/messages/:messageId',
    (ctx) => {
      const message = webhookMessage(ctx);
      editMessage(ctx.world, message, ctx.payload ?? {}, ctx.files);
      return ok(messageWire(ctx.world, message));
    },
    false,
  ),
  route(
    'DELETE',
    '/webhooks/:applicationId/:token/messages/:messageId',
    (ctx) => {
      deleteMessage(ctx.world, webhookMessage(ctx));
      return noContent();
    },
    false,
  ),
];
