// Wire shapes of users, members, channels, messages and the guild, as Discord's API v10 sends them.
import { isoTime } from './snowflake.js';
import type { FakeDiscordAttachment, FakeDiscordChannel, Json } from './types.js';
import type { MessageRecord, UserRecord, World } from './world.js';

const permissions = (bits: number[]): string =>
  bits.reduce((all, bit) => all | (1n << BigInt(bit)), 0n).toString();

/** View, send, embed, attach, history, reactions, external emoji, app commands, public threads, send in threads. */
export const EVERYONE_PERMISSIONS = permissions([0, 6, 10, 11, 14, 15, 16, 18, 31, 35, 38]);
/** The bot's role adds manage messages, manage threads and private threads. */
export const BOT_PERMISSIONS = permissions([0, 6, 10, 11, 13, 14, 15, 16, 18, 31, 34, 35, 36, 38]);

export function userWire(user: UserRecord): Json {
  return {
    id: user.id,
    username: user.username,
    discriminator: '0',
    global_name: user.bot ? null : user.username,
    avatar: null,
    public_flags: 0,
    flags: 0,
    ...(user.bot ? { bot: true } : {}),
  };
}

export function memberWire(world: World, user: UserRecord, withUser: boolean): Json {
  return {
    roles: user.id === world.bot.id ? [world.guild.botRoleId] : [],
    joined_at: isoTime(world.guild.createdAt),
    nick: null,
    avatar: null,
    premium_since: null,
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
    communication_disabled_until: null,
    ...(withUser ? { user: userWire(user) } : {}),
  };
}

function threadFields(channel: FakeDiscordChannel): Json {
  return {
    parent_id: channel.parentId,
    owner_id: channel.ownerId,
    message_count: channel.messageCount,
    total_message_sent: channel.messageCount,
    member_count: 2,
    thread_metadata: {
      archived: channel.archived,
      auto_archive_duration: channel.autoArchiveDuration,
      archive_timestamp: isoTime(channel.archivedAt ?? channel.createdAt),
      locked: channel.locked,
      create_timestamp: isoTime(channel.createdAt),
      ...(channel.type === 12 ? { invitable: true } : {}),
    },
  };
}

export function channelWire(world: World, channel: FakeDiscordChannel): Json {
  const base = { id: channel.id, type: channel.type, last_message_id: channel.lastMessageId, flags: 0 };
  if (channel.type === 1) {
    const recipient = channel.recipientId ? world.users.get(channel.recipientId) : undefined;
    return { ...base, recipients: recipient ? [userWire(recipient)] : [] };
  }
  const common = { ...base, guild_id: channel.guildId, name: channel.name, rate_limit_per_user: 0 };
  if (world.isThread(channel)) return { ...common, ...threadFields(channel) };
  const position = [...world.channels.values()].filter((c) => c.type === 0).indexOf(channel);
  return {
    ...common,
    position,
    permission_overwrites: [],
    parent_id: null,
    topic: null,
    nsfw: false,
    default_auto_archive_duration: 1440,
  };
}

export function attachmentWire(attachment: FakeDiscordAttachment): Json {
  return {
    id: attachment.id,
    filename: attachment.filename,
    size: attachment.size,
    url: attachment.url,
    proxy_url: attachment.url,
    ...(attachment.contentType ? { content_type: attachment.contentType } : {}),
  };
}

function reactionsWire(reactions: string[]): Json[] {
  const counts = new Map<string, number>();
  for (const emoji of reactions) counts.set(emoji, (counts.get(emoji) ?? 0) + 1);
  return [...counts].map(([emoji, count]) => {
    const [name, id] = emoji.split(':');
    return { count, me: true, emoji: { id: id ?? null, name } };
  });
}

function referenceWire(world: World, message: MessageRecord, nested: boolean): Json {
  if (!message.messageReference) return {};
  const target = world.message(message.messageReference);
  const channel = world.channels.get(message.channelId);
  return {
    message_reference: {
      type: 0,
      message_id: message.messageReference,
      channel_id: target?.channelId ?? message.channelId,
      ...(channel?.guildId ? { guild_id: channel.guildId } : {}),
    },
    ...(nested
      ? { referenced_message: target && !target.deleted ? messageWire(world, target, false) : null }
      : {}),
  };
}

export function messageWire(world: World, message: MessageRecord, nested = true): Json {
  const interactionUser = message.interactionId
    ? world.users.get(world.interactions.get(message.interactionId)?.userId ?? '')
    : undefined;
  return {
    id: message.id,
    channel_id: message.channelId,
    author: userWire(message.author),
    content: message.content,
    timestamp: isoTime(message.timestamp),
    edited_timestamp: message.editedAt ? isoTime(message.editedAt) : null,
    tts: false,
    mention_everyone: false,
    mentions: message.mentions.flatMap((id) => {
      const user = world.users.get(id);
      return user ? [userWire(user)] : [];
    }),
    mention_roles: [],
    attachments: message.attachments.map(attachmentWire),
    embeds: message.embeds,
    components: message.components,
    pinned: false,
    type: message.type,
    flags: message.flags ?? 0,
    ...(message.reactions.length ? { reactions: reactionsWire(message.reactions) } : {}),
    ...(message.webhookId ? { webhook_id: message.webhookId, application_id: world.applicationId } : {}),
    ...(message.interactionId && interactionUser
      ? {
          interaction_metadata: {
            id: message.interactionId,
            type: world.interactions.get(message.interactionId)?.type ?? 3,
            user: userWire(interactionUser),
            authorizing_integration_owners: { '0': world.guild.id },
          },
        }
      : {}),
    ...referenceWire(world, message, nested),
  };
}

/** A message as MESSAGE_CREATE / MESSAGE_UPDATE carry it: with guild_id, member and channel_type. */
export function messageDispatch(world: World, message: MessageRecord): Json {
  const channel = world.channels.get(message.channelId);
  const inGuild = channel?.guildId !== undefined;
  return {
    ...messageWire(world, message),
    channel_type: channel?.type ?? 0,
    ...(inGuild ? { guild_id: channel?.guildId, member: memberWire(world, message.author, false) } : {}),
  };
}

function rolesWire(world: World): Json[] {
  const role = (id: string, name: string, position: number, perms: string, managed: boolean): Json => ({
    id,
    name,
    color: 0,
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position,
    permissions: perms,
    managed,
    mentionable: false,
    flags: 0,
    ...(managed ? { tags: { bot_id: world.bot.id } } : {}),
  });
  return [
    role(world.guild.id, '@everyone', 0, EVERYONE_PERMISSIONS, false),
    role(world.guild.botRoleId, world.bot.username, 1, BOT_PERMISSIONS, true),
  ];
}

export function guildWire(world: World): Json {
  const { guild } = world;
  return {
    id: guild.id,
    name: guild.name,
    icon: null,
    splash: null,
    discovery_splash: null,
    banner: null,
    description: null,
    owner_id: guild.ownerId,
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    roles: rolesWire(world),
    emojis: [],
    stickers: [],
    features: [],
    mfa_level: 0,
    application_id: null,
    system_channel_id: null,
    system_channel_flags: 0,
    rules_channel_id: null,
    public_updates_channel_id: null,
    safety_alerts_channel_id: null,
    vanity_url_code: null,
    premium_tier: 0,
    premium_subscription_count: 0,
    premium_progress_bar_enabled: false,
    preferred_locale: 'en-US',
    nsfw_level: 0,
    max_members: 500_000,
  };
}

/** GUILD_CREATE: the guild with its channels, active threads, the bot's member and the rest empty. */
export function guildCreateWire(world: World): Json {
  const live = [...world.channels.values()].filter((c) => !c.deleted && c.guildId !== undefined);
  return {
    ...guildWire(world),
    joined_at: isoTime(world.guild.createdAt),
    large: false,
    unavailable: false,
    member_count: world.users.size,
    members: [memberWire(world, world.bot, true)],
    channels: live.filter((c) => c.type === 0).map((c) => channelWire(world, c)),
    threads: live.filter((c) => world.isThread(c) && !c.archived).map((c) => channelWire(world, c)),
    voice_states: [],
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}
