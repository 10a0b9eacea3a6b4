import { DiscordChannel } from '../../src/channels/discord/discord-channel.js';
import { startFakeDiscord, type FakeDiscord, type FakeDiscordMessage } from '../fakes/discord/server.js';
import { buttonsOf, CHANNEL, ephemeralReplies, OWNER, STRANGER } from '../support/discord-setup.js';
import { waitFor } from '../support/wait.js';
import { channelContract } from './channel.contract.js';

let fake: FakeDiscord;
const idOf = (m: FakeDiscordMessage, label: string) => {
  const button = buttonsOf(m).find((b) => b.label.startsWith(label));
  if (!button) throw new Error(`no button ${label} in ${JSON.stringify(buttonsOf(m))}`);
  return button.customId;
};
/** The ids of the buttons a message first showed (to press one again after they are gone). */
const firstIds = new Map<string, Map<string, string>>();

channelContract('discord', {
  owner: OWNER,
  stranger: STRANGER,
  async setUp() {
    fake = await startFakeDiscord({ channels: [{ id: CHANNEL, name: 'proj' }] });
    firstIds.clear();
    return {
      channel: new DiscordChannel({ token: fake.token, restApi: fake.restApi }),
      chat: { chatId: CHANNEL },
    };
  },
  tearDown: () => fake.close(),
  shownAs: (user) => `<@${user}>`,
  prompt: async (words) => {
    const message = await fake.waitForMessage(
      (m) => m.fromBot && buttonsOf(m).length > 0 && m.content.includes(words),
      10_000,
    );
    firstIds.set(message.id, new Map(buttonsOf(message).map((b) => [b.label, b.customId])));
    return message;
  },
  labels: (m) => buttonsOf(m as FakeDiscordMessage).map((b) => b.label),
  text: (m) => (m as FakeDiscordMessage).content,
  press: (user, m, label, force) => {
    const message = m as FakeDiscordMessage;
    const known = [...(firstIds.get(message.id) ?? new Map<string, string>()).entries()].find(([l]) =>
      l.startsWith(label),
    );
    const customId = force && known ? known[1] : idOf(message, label);
    return fake.userPressesButton({
      userId: user,
      username: 'someone',
      messageId: message.id,
      customId,
      force: Boolean(force),
    });
  },
  pressData: (user, m, data) =>
    fake.userPressesButton({
      userId: user,
      username: 'someone',
      messageId: (m as FakeDiscordMessage).id,
      customId: data,
      force: true,
    }),
  toldPrivately: (id, pattern) =>
    waitFor(`told ${pattern}`, () =>
      ephemeralReplies(fake).some((r) => r.interactionId === id && pattern.test(r.content)),
    ).then(() => undefined),
  saidPublicly: (pattern) =>
    fake.messages.some((m) => m.fromBot && !((m.flags ?? 0) & 64) && pattern.test(m.content)),
  async answerWithWords(user, m, words) {
    const message = m as FakeDiscordMessage;
    fake.userPressesButton({
      userId: user,
      username: 'owner',
      messageId: message.id,
      customId: idOf(message, 'No, and say why'),
    });
    await fake.waitFor(() => fake.interactionResponses.some((r) => r.type === 9), 10_000, 'the form');
    const modal = fake.interactionResponses.find((r) => r.type === 9)!;
    fake.userSubmitsModal({
      userId: user,
      channelId: CHANNEL,
      messageId: message.id,
      customId: String(modal.data?.['custom_id']),
      fields: { text: words },
    });
  },
  say: (user, text) =>
    void fake.userSends({ userId: user, username: 'someone', channelId: CHANNEL, content: text }),
  sendFile: (user, name, data, caption) =>
    void fake.userSends({
      userId: user,
      username: 'owner',
      channelId: CHANNEL,
      content: caption,
      attachments: [{ filename: name, data }],
    }),
  botSaid: (pattern) =>
    fake.waitForMessage((m) => m.fromBot && pattern.test(m.content), 10_000).then((m) => m.content),
  fileSent: (prefix) =>
    fake
      .waitForMessage((m) => m.fromBot && m.attachments.some((a) => a.filename.startsWith(prefix)), 10_000)
      .then((m) => m.attachments.find((a) => a.filename.startsWith(prefix))!.data!),
});
