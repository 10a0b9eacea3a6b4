import type { Channel, ChatTarget } from '../channels/contract.js';
import { TelegramChannel } from '../channels/telegram/telegram-channel.js';
import type { Config } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import { ChannelRelay } from '../sessions/channel-relay.js';
import type { Store } from '../store/store.js';
import { isProcessAlive } from './process.js';

/** Remote channels agent-bridge can host; each is configured under `channels:` in agent-bridge.yaml. */
export const REMOTE_CHANNELS = ['telegram'] as const;

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

/** Builds the relay for one configured channel; null when it is not configured. */
export function channelRelay(name: string, options: HostingOptions): HostedChannel | null {
  const { config, store, clock, log } = options;
  if (name !== 'telegram' || !config.channels.telegram) return null;
  const telegram = config.channels.telegram;
  let relay: ChannelRelay | null = null;
  const channel = new TelegramChannel({
    token: telegram.token,
    ...(telegram.api_root ? { apiRoot: telegram.api_root } : {}),
    clock,
    onReconnect: () => relay?.reconnected(),
    onError: log,
  });
  const chats: ChatTarget[] = (telegram.chat_ids ?? telegram.allowed_users).map((id) => ({
    chatId: String(id),
  }));
  relay = new ChannelRelay({
    channel,
    store,
    clock,
    chats,
    allowedUsers: new Set(telegram.allowed_users.map(String)),
    outputThreshold: config.defaults.output_threshold,
    isAlive: isProcessAlive,
    log,
    ...(options.onAnswer ? { onAnswer: options.onAnswer } : {}),
  });
  return { relay, channel };
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
