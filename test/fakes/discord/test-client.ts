// The discord.js client set-up that works against the fake (used by the fake's own tests).
import { once } from 'node:events';
import { Client, Events, GatewayIntentBits, Partials } from 'discord.js';
import type { FakeDiscord } from './server.js';

export const DEFAULT_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.DirectMessages,
  GatewayIntentBits.MessageContent,
];

export function discordClientFor(fake: FakeDiscord, intents: GatewayIntentBits[] = DEFAULT_INTENTS): Client {
  return new Client({
    intents,
    partials: [Partials.Channel, Partials.Message],
    rest: { api: fake.restApi },
    // Without GUILD_CREATE for some guild, discord.js would wait 15 s before `clientReady`.
    waitGuildTimeout: 1000,
    // The default throttler waits ~5 s between IDENTIFYs (a re-identify after an invalid session).
    ws: { buildIdentifyThrottler: () => ({ waitForIdentify: async () => undefined }) },
  });
}

/** Logs in and waits for `clientReady`: destroying a client between IDENTIFY and READY can hang discord.js. */
export async function connectDiscord(fake: FakeDiscord, intents?: GatewayIntentBits[]): Promise<Client> {
  const client = discordClientFor(fake, intents);
  const ready = once(client, Events.ClientReady);
  await client.login(fake.token);
  await ready;
  return client;
}
