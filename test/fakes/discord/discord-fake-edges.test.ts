import { once } from 'node:events';
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  DiscordAPIError,
  Events,
  GatewayIntentBits,
  type Client,
  type Interaction,
  type Message,
  type TextChannel,
} from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord, type FakeDiscordOptions } from './server.js';
import { connectDiscord } from './test-client.js';

const USER = '1400000000000000042';
const GENERAL = '1400000000000000100';
const DM = '1400000000000000101';

describe('fake Discord: deferred replies, faults, intents, raw HTTP', () => {
  let fake: FakeDiscord | undefined;
  let client: Client | undefined;
  const errors: unknown[] = [];

  async function setUp(
    options: FakeDiscordOptions = {},
    intents?: GatewayIntentBits[],
  ): Promise<[FakeDiscord, Client]> {
    errors.length = 0;
    fake = await startFakeDiscord({
      channels: [
        { id: GENERAL, name: 'general' },
        { id: DM, name: 'dm', type: 'dm' },
      ],
      ...options,
    });
    client = await connectDiscord(fake, intents);
    return [fake, client];
  }

  afterEach(async () => {
    await client?.destroy();
    await fake?.close();
    client = undefined;
    fake = undefined;
  });

  async function sendButtons(c: Client, ...ids: string[]): Promise<Message> {
    const buttons = ids.map((id) =>
      new ButtonBuilder().setCustomId(id).setLabel(id).setStyle(ButtonStyle.Secondary),
    );
    const row = new ActionRowBuilder<ButtonBuilder>().addComponents(buttons);
    return (c.channels.cache.get(GENERAL) as TextChannel).send({ content: 'choose', components: [row] });
  }

  const handle = (c: Client, handler: (interaction: Interaction) => Promise<void>): void => {
    c.on(Events.InteractionCreate, (interaction) => void handler(interaction).catch((e) => errors.push(e)));
  };

  it('deferReply (ephemeral) → editReply fills the loading message; followUp adds one', async () => {
    const [f, c] = await setUp();
    const sent = await sendButtons(c, 'run');
    handle(c, async (interaction) => {
      if (!interaction.isButton()) return;
      await interaction.deferReply({ flags: 64 });
      await interaction.editReply('done');
      await interaction.followUp({ content: 'details', flags: 64 });
    });
    f.userPressesButton({ userId: USER, messageId: sent.id, customId: 'run' });
    const details = await f.waitForMessage((m) => m.content === 'details');
    const original = f.messages.find((m) => m.content === 'done');
    expect(original).toMatchObject({ flags: 64, edits: 1, fromBot: true });
    expect(details).toMatchObject({ flags: 64, interactionId: original?.interactionId });
    expect(f.interactionResponses.map((r) => r.type)).toEqual([5]);
    expect(errors).toEqual([]);
  });

  it('deferUpdate → editReply edits the message that carries the button; reply withResponse', async () => {
    const [f, c] = await setUp();
    const sent = await sendButtons(c, 'a', 'b');
    handle(c, async (interaction) => {
      if (!interaction.isButton()) return;
      if (interaction.customId === 'a') {
        await interaction.deferUpdate();
        await interaction.editReply({ content: 'picked a', components: [] });
      } else {
        const response = await interaction.reply({ content: 'picked b', withResponse: true });
        await interaction.followUp(`reply id ${response.resource?.message?.id}`);
      }
    });
    f.userPressesButton({ userId: USER, messageId: sent.id, customId: 'b' });
    const reply = await f.waitForMessage((m) => m.content === 'picked b');
    await f.waitForMessage((m) => m.content === `reply id ${reply.id}`);
    f.userPressesButton({ userId: USER, messageId: sent.id, customId: 'a' });
    await f.waitForMessage((m) => m.id === sent.id && m.content === 'picked a' && m.components.length === 0);
    expect(errors).toEqual([]);
  });

  it('a late first callback is an unknown interaction (10062)', async () => {
    const [f, c] = await setUp({ interactionAckMs: 50 });
    const sent = await sendButtons(c, 'slow');
    handle(c, async (interaction) => {
      if (!interaction.isButton()) return;
      await new Promise((resolve) => setTimeout(resolve, 120));
      await interaction.update({ content: 'too late' });
    });
    f.userPressesButton({ userId: USER, messageId: sent.id, customId: 'slow' });
    await f.waitFor(() => errors.length === 1, 5000, 'the handler to fail');
    expect(errors[0]).toBeInstanceOf(DiscordAPIError);
    expect((errors[0] as DiscordAPIError).code).toBe(10062);
  });

  it('failNext: a 500 is retried by discord.js, a 403 is thrown', async () => {
    const [f, c] = await setUp();
    const channel = c.channels.cache.get(GENERAL) as TextChannel;
    f.failNext(/\/messages$/, 500);
    await channel.send('retried');
    f.failNext(/^POST \/channels\/\d+\/messages$/, 403, { message: 'Missing Permissions', code: 50013 });
    const denied = await channel.send('denied').catch((e: unknown) => e);
    expect((denied as DiscordAPIError).code).toBe(50013);
    const statuses = f.calls
      .filter((call) => call.path === `/channels/${GENERAL}/messages`)
      .map((call) => call.status);
    expect(statuses).toEqual([500, 200, 403]);
    expect(f.messages.map((m) => m.content)).toEqual(['retried']);
  });

  it('an invalidated session makes the client IDENTIFY again', async () => {
    const [f, c] = await setUp();
    const ready = once(c, Events.ShardReady);
    f.dropGateway(4000, { invalidate: true });
    await ready;
    expect(f.gatewayStats).toMatchObject({ identifies: 2, resumes: 0 });
    const got = once(c, Events.MessageCreate);
    f.userSends({ userId: USER, channelId: GENERAL, content: 'still here' });
    expect(((await got)[0] as Message).content).toBe('still here');
  });

  it('without MessageContent, guild messages arrive blank unless they mention the bot; DMs keep content', async () => {
    const [f, c] = await setUp({}, [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.DirectMessages,
    ]);
    const seen: string[] = [];
    c.on(Events.MessageCreate, (m) => seen.push(m.content));
    f.userSends({ userId: USER, channelId: GENERAL, content: 'secret' });
    f.userSends({ userId: USER, channelId: GENERAL, content: `<@${f.botUser.id}> hi` });
    f.userSends({ userId: USER, channelId: DM, content: 'in a DM' });
    await f.waitFor(() => seen.length === 3);
    expect(seen).toEqual(['', `<@${f.botUser.id}> hi`, 'in a DM']);
  });

  it('raw HTTP: 401 without the token, 204 without content-type, rate-limit headers everywhere', async () => {
    const [f] = await setUp();
    const noAuth = await fetch(`${f.restApi}/v10/users/@me`);
    expect([noAuth.status, await noAuth.json()]).toEqual([401, { message: '401: Unauthorized', code: 0 }]);
    const typing = await fetch(`${f.restApi}/v10/channels/${GENERAL}/typing`, {
      method: 'POST',
      headers: { authorization: `Bot ${f.token}` },
    });
    expect([typing.status, typing.headers.get('content-type')]).toEqual([204, null]);
    expect(typing.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{32}$/);
    expect(Number(typing.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(0);
    const missing = await fetch(`${f.restApi}/v10/channels/1/messages/2`, {
      headers: { authorization: `Bot ${f.token}` },
    });
    expect([missing.status, (await missing.json()).code]).toEqual([404, 10003]);
  });
});
