import type { Channel, ChatTarget } from '../channels/contract.js';
import { DiscordChannel, DM_PREFIX } from '../channels/discord/discord-channel.js';
import { APP_HOME, DM_PREFIX as SLACK_DM_PREFIX, SlackChannel } from '../channels/slack/slack-channel.js';
import { TelegramChannel } from '../channels/telegram/telegram-channel.js';
import type { Config } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import { ChannelRelay } from '../sessions/channel-relay.js';
import type { Store } from '../store/store.js';
import { UsageError } from './errors.js';
import { isProcessAlive } from './process.js';

export { REMOTE_CHANNELS } from './remote-channels.js';

export interface HostedChannel {
  relay: ChannelRelay;
  channel: Channel;
}

export interface HostingOptions {
  config: Config;
  store: Store;
  clock: Clock;
  log: (line: string) => void;
  /** A session in this process applies answers at once when told. */
  onAnswer?: () => void;
}

export interface RemoteChannel {
  channel: Channel;
  allowedUsers: Set<string>;
  chats: ChatTarget[];
  /** Where `serve` keeps the control panel (a Discord channel, Slack's App Home), if anywhere. */
  panelChat?: ChatTarget;
}

/** A configured channel with who may use it and where its prompts go by default; null when not configured. */
export function remoteChannel(
  name: string,
  config: Config,
  clock: Clock,
  log: (line: string) => void,
  onReconnect?: () => void,
): RemoteChannel | null {
  const telegram = config.channels.telegram;
  if (name === 'telegram' && telegram) {
    const channel = new TelegramChannel({
      token: telegram.token,
      ...(telegram.api_root ? { apiRoot: telegram.api_root } : {}),
      clock,
      onError: log,
      ...(onReconnect ? { onReconnect } : {}),
    });
    const chats = (telegram.chat_ids ?? telegram.allowed_users).map((id) => ({ chatId: String(id) }));
    return { channel, allowedUsers: new Set(telegram.allowed_users.map(String)), chats };
  }
  const discord = config.channels.discord;
  if (name === 'discord' && discord) {
    // The bot listens in the channels it was given (and their threads) and in DMs; nowhere else.
    const listened = new Set([
      ...(discord.channel_ids ?? []).map(String),
      ...(discord.general_channel ? [String(discord.general_channel)] : []),
      ...config.repos.flatMap((repo) => (repo.channels?.discord ?? []).map(String)),
    ]);
    const token = discord.token ?? process.env.DISCORD_BOT_TOKEN;
    if (!token)
      throw new UsageError(
        'channels.discord.token is missing: set it, or the DISCORD_BOT_TOKEN environment variable',
      );
    const channel = new DiscordChannel({
      token,
      ...(discord.api_root ? { restApi: discord.api_root } : {}),
      clock,
      onError: log,
      listensTo: (target, direct) => direct || listened.has(target.chatId),
      ...(onReconnect ? { onReconnect } : {}),
    });
    // Without channel ids, prompts go to each allowed person's DMs with the bot (as Telegram's private chats).
    const chats = discord.channel_ids?.length
      ? discord.channel_ids.map((id) => ({ chatId: String(id) }))
      : discord.allowed_users.map((id) => ({ chatId: `${DM_PREFIX}${id}` }));
    const general = discord.general_channel;
    return {
      channel,
      allowedUsers: new Set(discord.allowed_users.map(String)),
      chats,
      ...(general ? { panelChat: { chatId: String(general) } } : {}),
    };
  }
  if (name === 'slack' && config.channels.slack) return slackChannel(config, clock, log, onReconnect);
  return null;
}

function slackChannel(
  config: Config,
  clock: Clock,
  log: (line: string) => void,
  onReconnect?: () => void,
): RemoteChannel {
  const slack = config.channels.slack!;
  // The app listens in the channels it was given (and their threads) and in DMs; nowhere else.
  const listened = new Set([
    ...(slack.channel_ids ?? []),
    ...config.repos.flatMap((repo) => (repo.channels?.slack ?? []).map(String)),
  ]);
  const token = slack.token ?? process.env.SLACK_BOT_TOKEN;
  const appToken = slack.app_token ?? process.env.SLACK_APP_TOKEN;
  if (!token)
    throw new UsageError(
      'channels.slack.token is missing: set it, or the SLACK_BOT_TOKEN environment variable',
    );
  if (!appToken)
    throw new UsageError(
      'channels.slack.app_token is missing: set it, or the SLACK_APP_TOKEN environment variable',
    );
  const allowed = [...slack.allowed_users];
  const channel = new SlackChannel({
    token,
    appToken,
    ...(slack.api_root ? { apiRoot: slack.api_root } : {}),
    clock,
    onError: log,
    listensTo: (target, direct) => direct || listened.has(target.chatId),
    homeUsers: () => allowed,
    ...(onReconnect ? { onReconnect } : {}),
  });
  // Without channel ids, prompts go to each allowed person's DMs with the app.
  const chats = slack.channel_ids?.length
    ? slack.channel_ids.map((id) => ({ chatId: id }))
    : allowed.map((id) => ({ chatId: `${SLACK_DM_PREFIX}${id}` }));
  return { channel, allowedUsers: new Set(allowed), chats, panelChat: { chatId: APP_HOME } };
}

/** Who may use each configured channel (a reload applies new lists without restarting). */
export function allowlists(config: Config): Map<string, Set<string>> {
  const lists = new Map<string, Set<string>>();
  if (config.channels.telegram)
    lists.set('telegram', new Set(config.channels.telegram.allowed_users.map(String)));
  if (config.channels.discord)
    lists.set('discord', new Set(config.channels.discord.allowed_users.map(String)));
  if (config.channels.slack) lists.set('slack', new Set(config.channels.slack.allowed_users));
  return lists;
}

/** Builds the relay for one configured channel; null when it is not configured. */
export function channelRelay(name: string, options: HostingOptions): HostedChannel | null {
  const { config, store, clock, log } = options;
  let relay: ChannelRelay | null = null;
  const remote = remoteChannel(name, config, clock, log, () => relay?.reconnected());
  if (!remote) return null;
  relay = new ChannelRelay({
    channel: remote.channel,
    store,
    clock,
    chats: remote.chats,
    allowedUsers: remote.allowedUsers,
    outputThreshold: config.defaults.output_threshold,
    isAlive: isProcessAlive,
    log,
    ...(options.onAnswer ? { onAnswer: options.onAnswer } : {}),
  });
  return { relay, channel: remote.channel };
}

/** Starts hosting `names` unless another live agent-bridge process already hosts each; returns what started. */
export async function hostChannels(names: string[], options: HostingOptions): Promise<ChannelRelay[]> {
  const started: ChannelRelay[] = [];
  for (const name of names) {
    if (options.store.channels.hostAlive(name, isProcessAlive)) continue;
    const hosted = channelRelay(name, options);
    if (hosted && (await hosted.relay.start())) started.push(hosted.relay);
  }
  return started;
}
