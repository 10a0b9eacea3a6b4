// Simulated users: messages (MESSAGE_CREATE), button presses and modal submits (INTERACTION_CREATE).
import { mentionsIn, unarchiveForSend } from './messages.js';
import {
  BOT_PERMISSIONS,
  channelWire,
  EVERYONE_PERMISSIONS,
  memberWire,
  messageDispatch,
  messageWire,
  userWire,
} from './serialize.js';
import { nextId, randomToken } from './snowflake.js';
import type { ButtonPressSpec, FakeDiscordChannel, Json, ModalSubmitSpec, UserSendSpec } from './types.js';
import { modalInputs } from './validate.js';
import type { MessageRecord, UserRecord, World } from './world.js';

function liveChannel(world: World, channelId: string): FakeDiscordChannel {
  const channel = world.channel(channelId);
  if (!channel) throw new Error(`no channel ${channelId} (unknown or deleted)`);
  return channel;
}

export function userSends(world: World, spec: UserSendSpec): MessageRecord {
  const channel = liveChannel(world, spec.channelId);
  const author = world.userFor(spec.userId, spec.username, spec.bot ?? false);
  if (channel.type === 1) channel.recipientId ??= author.id;
  if (spec.replyToMessageId && !world.message(spec.replyToMessageId))
    throw new Error(`no message ${spec.replyToMessageId} to reply to`);
  unarchiveForSend(world, channel);
  const attachments = (spec.attachments ?? []).map((file) => world.storeAttachment(channel.id, file));
  const message: MessageRecord = {
    id: nextId(),
    channelId: channel.id,
    authorId: author.id,
    content: spec.content,
    embeds: [],
    components: [],
    attachments,
    edits: 0,
    deleted: false,
    fromBot: false,
    flags: 0,
    reactions: [],
    author,
    timestamp: Date.now(),
    type: spec.replyToMessageId ? 19 : 0,
    mentions: mentionsIn(spec.content),
    ...(spec.replyToMessageId ? { messageReference: spec.replyToMessageId } : {}),
  };
  world.addMessage(message);
  world.dispatch('MESSAGE_CREATE', messageDispatch(world, message));
  return message;
}

/** The INTERACTION_CREATE payload common to components and modals; records the open interaction. */
function interaction(
  world: World,
  user: UserRecord,
  channel: FakeDiscordChannel,
  type: number,
  data: Json,
  message: MessageRecord | undefined,
): Json {
  const id = nextId();
  const token = randomToken('aW50ZXJhY3Rpb246');
  world.addInteraction({
    id,
    token,
    type,
    channelId: channel.id,
    userId: user.id,
    ...(message ? { messageId: message.id } : {}),
    createdAt: Date.now(),
    acknowledged: false,
  });
  const inGuild = channel.guildId !== undefined;
  return {
    id,
    application_id: world.applicationId,
    type,
    data,
    token,
    version: 1,
    channel_id: channel.id,
    channel: { ...channelWire(world, channel), ...(inGuild ? { permissions: EVERYONE_PERMISSIONS } : {}) },
    ...(inGuild
      ? {
          guild_id: channel.guildId,
          guild: { id: channel.guildId, locale: 'en-US', features: [] },
          guild_locale: 'en-US',
        }
      : { user: userWire(user) }),
    ...(inGuild ? { member: { ...memberWire(world, user, true), permissions: EVERYONE_PERMISSIONS } } : {}),
    ...(message ? { message: messageWire(world, message) } : {}),
    app_permissions: BOT_PERMISSIONS,
    locale: 'en-US',
    entitlements: [],
    authorizing_integration_owners: inGuild ? { '0': channel.guildId } : { '1': user.id },
    context: inGuild ? 0 : 1,
    attachment_size_limit: world.uploadLimitBytes,
  };
}

function buttons(message: MessageRecord): Json[] {
  return message.components.flatMap((row) =>
    Array.isArray(row['components']) ? (row['components'] as Json[]) : [],
  );
}

export function userPressesButton(world: World, spec: ButtonPressSpec): string {
  const message = world.message(spec.messageId);
  if (!message || message.deleted) throw new Error(`no message ${spec.messageId} to press a button on`);
  const channel = liveChannel(world, spec.channelId ?? message.channelId);
  const button = buttons(message).find((b) => b['type'] === 2 && b['custom_id'] === spec.customId);
  if (!spec.force && (!button || button['disabled'] === true))
    throw new Error(
      `message ${message.id} shows no enabled button ${JSON.stringify(spec.customId)} ` +
        `(buttons: ${JSON.stringify(buttons(message).map((b) => b['custom_id']))}); pass force: true to press anyway`,
    );
  const user = world.userFor(spec.userId, spec.username);
  const payload = interaction(
    world,
    user,
    channel,
    3,
    { custom_id: spec.customId, component_type: 2 },
    message,
  );
  world.dispatch('INTERACTION_CREATE', payload);
  return String(payload['id']);
}

/** Answers the modal the bot showed with this custom_id, in its shape (action rows or labels). */
export function userSubmitsModal(world: World, spec: ModalSubmitSpec): string {
  const shown = world.modals.get(spec.customId);
  if (!shown && !spec.force)
    throw new Error(
      `the bot showed no modal ${JSON.stringify(spec.customId)}; pass force: true to submit anyway`,
    );
  const inputs = shown ? modalInputs(shown) : [];
  const unknown = Object.keys(spec.fields).filter((key) => shown && !inputs.some((i) => i.customId === key));
  if (unknown.length && !spec.force)
    throw new Error(`modal ${spec.customId} has no inputs ${unknown.join(', ')}`);
  const inLabel = inputs.some((input) => input.inLabel);
  const components = Object.entries(spec.fields).map(([customId, value], index) => {
    const input = { type: 4, id: index + 2, custom_id: customId, value };
    return inLabel
      ? { type: 18, id: index + 1, component: input }
      : { type: 1, id: index + 1, components: [input] };
  });
  const channel = liveChannel(world, spec.channelId);
  const message = spec.messageId ? world.message(spec.messageId) : undefined;
  if (spec.messageId && !message) throw new Error(`no message ${spec.messageId}`);
  const user = world.userFor(spec.userId, spec.username);
  const payload = interaction(world, user, channel, 5, { custom_id: spec.customId, components }, message);
  world.dispatch('INTERACTION_CREATE', payload);
  return String(payload['id']);
}
