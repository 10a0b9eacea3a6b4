/**
 * Remote channels agent-bridge can host, each configured under `channels:` in agent-bridge.yaml. Named apart
 * from channel-hosting so `run` knows them without loading any channel's code.
 */
export const REMOTE_CHANNELS = ['telegram', 'discord', 'slack'] as const;
export type RemoteChannelName = (typeof REMOTE_CHANNELS)[number];
