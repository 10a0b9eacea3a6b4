import { TelegramChannel } from '../../src/channels/telegram/telegram-channel.js';
import { startFakeTelegram, type FakeMessage, type FakeTelegram } from '../fakes/telegram/server.js';
import { buttonData, hasButtons, OWNER, STRANGER } from '../support/telegram-setup.js';
import { waitFor } from '../support/wait.js';
import { channelContract } from './channel.contract.js';

let fake: FakeTelegram;
/** A group both people are in (a stranger cannot press in the owner's private chat). */
const GROUP = -1001234567890;
/** The keyboard a message first showed (to press a button again after it is gone). */
const firstKeyboards = new Map<number, FakeMessage['reply_markup']>();
const labels = (m: FakeMessage) => (m.reply_markup?.inline_keyboard ?? []).flat().map((b) => b?.text ?? '');
// Telegram's labels carry an emoji in front of some words: match past it.
const find = (m: FakeMessage, label: string) => {
  const shown = labels(m).find((l) => l.replace(/^\W+\s/, '').startsWith(label));
  return buttonData(m, shown ?? label);
};
const pressIn = (user: string, message: FakeMessage, data: string, force: boolean) =>
  fake.userPressesButton({ userId: Number(user), chatId: GROUP, messageId: message.messageId, data, force })
    .callbackQueryId;

channelContract('telegram', {
  owner: String(OWNER),
  stranger: String(STRANGER),
  async setUp() {
    fake = await startFakeTelegram();
    fake.addChat({ id: GROUP, title: 'proj' });
    firstKeyboards.clear();
    const channel = new TelegramChannel({ token: fake.token, apiRoot: fake.apiRoot });
    return { channel, chat: { chatId: String(GROUP) } };
  },
  tearDown: () => fake.close(),
  shownAs: (user) => `telegram:${user}`,
  prompt: async (words) => {
    const message = await fake.waitForMessage((m) => hasButtons(m) && (m.text ?? '').includes(words), 10_000);
    firstKeyboards.set(message.messageId, message.reply_markup);
    return message;
  },
  labels: (m) => labels(m as FakeMessage),
  text: (m) => (m as FakeMessage).text ?? '',
  press: (user, m, label, force) => {
    const message = m as FakeMessage;
    const shown = force ? { ...message, reply_markup: firstKeyboards.get(message.messageId) } : message;
    return pressIn(user, message, find(shown as FakeMessage, label), Boolean(force));
  },
  pressData: (user, m, data) => pressIn(user, m as FakeMessage, data, true),
  toldPrivately: (id, pattern) =>
    waitFor(`told ${pattern}`, () =>
      fake.callbackAnswers.some((a) => a.callbackQueryId === id && pattern.test(a.text ?? '')),
    ).then(() => undefined),
  saidPublicly: (pattern) => fake.messages().some((m) => pattern.test(m.text ?? '')),
  async answerWithWords(user, m, words) {
    const message = m as FakeMessage;
    pressIn(user, message, find(message, 'No, and say why'), false);
    await fake.waitForMessage(
      (x) => /Reply to the prompt message with your words/.test(x.text ?? ''),
      10_000,
    );
    fake.userSendsText({
      userId: Number(user),
      chatId: GROUP,
      text: words,
      replyToMessageId: message.messageId,
    });
  },
  say: (user, text) => void fake.userSendsText({ userId: Number(user), chatId: GROUP, text }),
  sendFile: (user, name, data, caption) =>
    void fake.userSendsDocument({
      userId: Number(user),
      chatId: GROUP,
      fileName: name,
      bytes: data,
      caption,
    }),
  botSaid: (pattern) =>
    fake.waitForMessage((m) => pattern.test(m.text ?? ''), 10_000).then((m) => m.text ?? ''),
  fileSent: (prefix) =>
    fake
      .waitForMessage((m) => (m.document?.file_name ?? '').startsWith(prefix), 10_000)
      .then((m) => m.document!.bytes),
});
