import { once } from 'node:events';
import {
  ActionRowBuilder,
  AttachmentBuilder,
  ButtonBuilder,
  ButtonStyle,
  ChannelType,
  type Client,
  DiscordAPIError,
  Events,
  LabelBuilder,
  ModalBuilder,
  Routes,
  TextInputBuilder,
  TextInputStyle,
  type Interaction,
  type Message,
  type TextChannel,
  type ThreadChannel,
} from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from './server.js';
import { connectDiscord, discordClientFor } from './test-client.js';

const USER = '1400000000000000042';
const GENERAL = '1400000000000000100';
const DM = '1400000000000000101';

async function apiError(promise: Promise<unknown>): Promise<DiscordAPIError> {
  const error = await promise.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );
  if (!(error instanceof DiscordAPIError)) throw error;
  return error;
}

function buttonRow(...ids: string[]): ActionRowBuilder<ButtonBuilder> {
  const buttons = ids.map((id) =>
    new ButtonBuilder().setCustomId(id).setLabel(id).setStyle(ButtonStyle.Primary),
  );
  return new ActionRowBuilder<ButtonBuilder>().addComponents(buttons);
}

describe('fake Discord with the real discord.js client', () => {
  let fake: FakeDiscord;
  let client: Client | undefined;
  const general = GENERAL;
  const received: Message[] = [];
  const handlerErrors: unknown[] = [];

  beforeEach(async () => {
    fake = await startFakeDiscord({
      channels: [
        { id: GENERAL, name: 'agents' },
        { id: DM, name: 'dm', type: 'dm' },
      ],
    });
    received.length = 0;
    handlerErrors.length = 0;
    client = await connectDiscord(fake);
    client.on(Events.MessageCreate, (message) => received.push(message));
  });

  afterEach(async () => {
    await client?.destroy();
    client = undefined;
    await fake.close();
  });

  const textChannel = (): TextChannel => client?.channels.cache.get(general) as TextChannel;
  const onInteraction = (handler: (interaction: Interaction) => Promise<void>): void => {
    client?.on(
      Events.InteractionCreate,
      (interaction) => void handler(interaction).catch((e) => handlerErrors.push(e)),
    );
  };

  it('logs in: READY then GUILD_CREATE fill the caches; a wrong token fails login', async () => {
    expect(client?.user?.id).toBe(fake.botUser.id);
    const guild = client?.guilds.cache.get(fake.guildId);
    expect(guild?.channels.cache.get(general)?.name).toBe('agents');
    expect(guild?.members.me?.id).toBe(fake.botUser.id);
    expect(fake.isReady()).toBe(true);
    expect(fake.gatewayStats).toEqual({ identifies: 1, resumes: 0, connections: 1 });

    const wrong = discordClientFor(fake);
    await expect(wrong.login('MTIz.wrong.token')).rejects.toThrow(/invalid token/i);
    await wrong.destroy();
    expect(fake.calls.some((c) => c.path === '/gateway/bot' && c.status === 401)).toBe(true);
  });

  it('delivers user messages in a channel, a thread and a DM', async () => {
    fake.userSends({ userId: USER, username: 'alice', channelId: general, content: 'hello bot' });
    const threadId = fake.createThread({ parentId: general, name: 'task 1' });
    fake.userSends({ userId: USER, channelId: threadId, content: 'in the thread' });
    fake.userSends({ userId: USER, channelId: DM, content: 'private' });
    await fake.waitFor(() => received.length === 3, 5000, 'three messageCreate events');

    const [inChannel, inThread, inDm] = received;
    expect(inChannel).toMatchObject({ content: 'hello bot', channelId: general, guildId: fake.guildId });
    expect(inChannel?.author.username).toBe('alice');
    expect(inThread?.channel.isThread()).toBe(true);
    expect((inThread?.channel as ThreadChannel).parentId).toBe(general);
    expect(inDm?.channel.type).toBe(ChannelType.DM);
    expect(inDm?.guildId).toBeNull();
  });

  it('stores a sent message with button rows and a file; enforces Discord limits', async () => {
    const file = new AttachmentBuilder(Buffer.from('line 1\nline 2\n'), { name: 'build.log' });
    const sent = await textChannel().send({
      content: 'Run it?',
      components: [buttonRow('yes', 'no')],
      files: [file],
    });
    const stored = fake.messages.find((m) => m.id === sent.id);
    expect(stored).toMatchObject({ fromBot: true, content: 'Run it?', channelId: general, edits: 0 });
    expect(stored?.components[0]).toMatchObject({
      type: 1,
      components: [{ type: 2, custom_id: 'yes' }, { custom_id: 'no' }],
    });
    expect(stored?.attachments[0]?.data?.toString()).toBe('line 1\nline 2\n');
    const url = sent.attachments.first()?.url ?? '';
    expect(Buffer.from(await (await fetch(url)).arrayBuffer()).toString()).toBe('line 1\nline 2\n');
    expect(fake.downloads).toEqual([url]);

    const tooLong = await apiError(textChannel().send('x'.repeat(2001)));
    expect([tooLong.status, tooLong.code, tooLong.message]).toEqual([
      400,
      50035,
      expect.stringContaining('2000 or fewer'),
    ]);
    const rows = Array.from({ length: 6 }, (_, i) => buttonRow(`r${i}`));
    expect((await apiError(textChannel().send({ content: 'x', components: rows }))).code).toBe(50035);
    // The builders refuse a 101-char custom_id themselves; raw REST reaches the fake's check.
    const button = { type: 2, style: 1, label: 'L'.repeat(81), custom_id: 'a'.repeat(101) };
    const body = { content: 'x', components: [{ type: 1, components: [button] }] };
    const raw = await apiError(client!.rest.post(Routes.channelMessages(general), { body }));
    expect(raw.rawError).toMatchObject({
      code: 50035,
      errors: { components: { 0: { components: { 0: { custom_id: {}, label: {} } } } } },
    });
    expect((await apiError(textChannel().send({ content: '' }))).code).toBe(50006);
  });

  it('button press → interaction.update edits the message; a second ack is refused', async () => {
    const sent = await textChannel().send({
      content: 'Approve?',
      components: [buttonRow('approve', 'deny')],
    });
    const acks: DiscordAPIError[] = [];
    onInteraction(async (interaction) => {
      if (!interaction.isButton()) return;
      await interaction.update({
        content: `${interaction.customId} by ${interaction.user.username}`,
        components: [],
      });
      const again = { body: { type: 4, data: { content: 'again' } }, auth: false };
      acks.push(
        await apiError(
          client!.rest.post(Routes.interactionCallback(interaction.id, interaction.token), again),
        ),
      );
    });
    const id = fake.userPressesButton({
      userId: USER,
      username: 'bob',
      messageId: sent.id,
      customId: 'approve',
    });
    const edited = await fake.waitForMessage((m) => m.id === sent.id && m.content === 'approve by bob');
    expect(edited).toMatchObject({ components: [], edits: 1 });
    expect(fake.interactionResponses).toMatchObject([{ interactionId: id, type: 7 }]);
    await fake.waitFor(() => acks.length === 1);
    expect([acks[0]?.status, acks[0]?.code]).toEqual([400, 40060]);
    expect(() => fake.userPressesButton({ userId: USER, messageId: sent.id, customId: 'approve' })).toThrow(
      /no enabled button/,
    );
    const unknown = await apiError(
      client!.rest.post(Routes.interactionCallback('1', 'nope'), { body: { type: 6 }, auth: false }),
    );
    expect(unknown.code).toBe(10062);
    expect(handlerErrors).toEqual([]);
  });

  it('showModal, then the user submits it: isModalSubmit with the fields; an ephemeral reply', async () => {
    const sent = await textChannel().send({ content: 'Deny?', components: [buttonRow('deny')] });
    onInteraction(async (interaction) => {
      if (interaction.isButton()) {
        const input = new TextInputBuilder().setCustomId('reason').setStyle(TextInputStyle.Paragraph);
        const label = new LabelBuilder().setLabel('Why?').setTextInputComponent(input);
        await interaction.showModal(
          new ModalBuilder().setCustomId('deny-modal').setTitle('Deny').addLabelComponents(label),
        );
      } else if (interaction.isModalSubmit()) {
        await interaction.reply({
          content: `reason: ${interaction.fields.getTextInputValue('reason')}`,
          flags: 64,
        });
      }
    });
    fake.userPressesButton({ userId: USER, messageId: sent.id, customId: 'deny' });
    await fake.waitFor(() => fake.interactionResponses.some((r) => r.type === 9), 5000, 'the modal');
    fake.userSubmitsModal({
      userId: USER,
      channelId: general,
      messageId: sent.id,
      customId: 'deny-modal',
      fields: { reason: 'too risky' },
    });
    const reply = await fake.waitForMessage((m) => m.content === 'reason: too risky');
    expect(reply).toMatchObject({ fromBot: true, flags: 64 });
    expect(received.some((m) => m.id === reply.id)).toBe(false); // ephemeral: no MESSAGE_CREATE
    expect(handlerErrors).toEqual([]);
  });

  it('a 429 storm: discord.js waits out five 429s and the message is stored once', async () => {
    fake.rateLimitNext(5, { retryAfterSeconds: 0.05, route: /^POST \/channels\/\d+\/messages$/ });
    await textChannel().send('after the storm');
    const posts = fake.calls.filter((c) => c.method === 'POST' && c.path === `/channels/${general}/messages`);
    expect(posts.map((c) => c.status)).toEqual([429, 429, 429, 429, 429, 200]);
    expect(fake.messages.filter((m) => m.content === 'after the storm')).toHaveLength(1);
  });

  it('resumes after dropped gateway sockets and replays what was sent meanwhile', async () => {
    const resumed = once(client!, Events.ShardResume);
    fake.dropGateway();
    fake.userSends({ userId: USER, channelId: general, content: 'while away' });
    expect((await resumed)[1]).toBe(1); // replayed events
    await fake.waitFor(() => received.some((m) => m.content === 'while away'), 5000, 'the replayed message');

    const again = once(client!, Events.ShardResume);
    fake.dropGateway(1006);
    await again;
    fake.userSends({ userId: USER, channelId: general, content: 'after' });
    await fake.waitFor(() => received.some((m) => m.content === 'after'), 5000, 'a message after resuming');
    expect(fake.gatewayStats).toMatchObject({ identifies: 1, resumes: 2, connections: 3 });
    expect(received.filter((m) => m.content === 'while away')).toHaveLength(1);
  });

  it('thread events: archive, bot threads, sending unarchives, delete', async () => {
    const updates: Array<{ id: string; archived: boolean | null }> = [];
    client!.on(Events.ThreadUpdate, (_old, thread) =>
      updates.push({ id: thread.id, archived: thread.archived }),
    );
    const deleted = once(client!, Events.ThreadDelete);
    const threadId = fake.createThread({ parentId: general, name: 'work' });
    await fake.waitFor(() => client!.channels.cache.has(threadId));
    fake.archiveThread(threadId);
    await fake.waitFor(() => updates.length === 1);
    expect(updates[0]).toEqual({ id: threadId, archived: true });

    const thread = client!.channels.cache.get(threadId) as ThreadChannel;
    await thread.send('wake up');
    expect(fake.channel(threadId)?.archived).toBe(false);
    await thread.setArchived(true);
    expect(fake.channel(threadId)?.archived).toBe(true);

    const starter = await textChannel().send('Session 7');
    const fromMessage = await starter.startThread({ name: 'Session 7' });
    expect([fromMessage.id, fake.channel(starter.id)?.type]).toEqual([starter.id, 11]);
    fake.deleteThread(threadId);
    expect((await deleted)[0].id).toBe(threadId);
  });

  it('user attachments download with the right bytes; size-only ones stream zeros', async () => {
    const data = Buffer.from([0, 1, 2, 250, 255]);
    fake.userSends({
      userId: USER,
      channelId: general,
      content: 'files',
      attachments: [
        { filename: 'raw.bin', data },
        { filename: 'big.iso', size: 3 * 1024 * 1024 },
      ],
    });
    await fake.waitFor(() => received.length === 1);
    const [small, big] = [...received[0]!.attachments.values()];
    expect([small?.name, small?.size, big?.size]).toEqual(['raw.bin', 5, 3 * 1024 * 1024]);
    expect(Buffer.from(await (await fetch(small!.url)).arrayBuffer())).toEqual(data);
    const zeros = Buffer.from(await (await fetch(big!.url)).arrayBuffer());
    expect([zeros.length, zeros.every((b) => b === 0)]).toEqual([3 * 1024 * 1024, true]);
    expect(fake.downloads).toEqual([small!.url, big!.url]);
  });
});
