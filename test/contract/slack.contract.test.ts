import { startFakeSlack, type FakeSlack, type FakeSlackMessage } from '../fakes/slack/server.js';
import {
  buttonsOf,
  CHANNEL,
  ephemeralTo,
  OWNER,
  shownText,
  slackChannelFor,
  STRANGER,
} from '../support/slack-setup.js';
import { waitFor } from '../support/wait.js';
import { channelContract } from './channel.contract.js';

let fake: FakeSlack;
const idOf = (m: FakeSlackMessage, label: string) => {
  const button = buttonsOf(m).find((b) => b.label.startsWith(label));
  if (!button) throw new Error(`no button ${label} in ${JSON.stringify(buttonsOf(m))}`);
  return button.actionId;
};
/** The ids of the buttons a message first showed (to press one again after they are gone). */
const firstIds = new Map<string, Array<{ label: string; actionId: string }>>();

channelContract('slack', {
  owner: OWNER,
  stranger: STRANGER,
  async setUp() {
    fake = await startFakeSlack({ channels: [{ id: CHANNEL, name: 'proj' }] });
    firstIds.clear();
    return { channel: slackChannelFor(fake), chat: { chatId: CHANNEL } };
  },
  tearDown: () => fake.close(),
  shownAs: (user) => `<@${user}>`,
  prompt: async (words) => {
    const message = await fake.waitForMessage(
      (m) => m.fromBot && buttonsOf(m).length > 0 && shownText(m).includes(words),
      10_000,
    );
    firstIds.set(message.ts, buttonsOf(message));
    return message;
  },
  labels: (m) => buttonsOf(m as FakeSlackMessage).map((b) => b.label),
  text: (m) => shownText(m as FakeSlackMessage),
  press: (user, m, label, force) => {
    const message = m as FakeSlackMessage;
    const known = firstIds.get(message.ts)?.find((b) => b.label.startsWith(label));
    const actionId = force && known ? known.actionId : idOf(message, label);
    fake.userPressesButton({ user, messageTs: message.ts, actionId, force: Boolean(force) });
    return { user, before: ephemeralTo(fake, user).length };
  },
  pressData: (user, m, data) => {
    fake.userPressesButton({ user, messageTs: (m as FakeSlackMessage).ts, actionId: data, force: true });
    return { user, before: ephemeralTo(fake, user).length };
  },
  toldPrivately: (press, pattern) => {
    const { user, before } = press as { user: string; before: number };
    return waitFor(`told ${pattern}`, () =>
      ephemeralTo(fake, user)
        .slice(before)
        .some((m) => pattern.test(m.text)),
    ).then(() => undefined);
  },
  saidPublicly: (pattern) => fake.messages.some((m) => m.fromBot && !m.ephemeralFor && pattern.test(m.text)),
  async answerWithWords(user, m, words) {
    const message = m as FakeSlackMessage;
    fake.userPressesButton({ user, messageTs: message.ts, actionId: idOf(message, 'No, and say why') });
    await fake.waitFor(() => fake.views.some((v) => v.type === 'modal'), 10_000, 'the form');
    fake.userSubmitsForm({ user, viewId: fake.views.find((v) => v.type === 'modal')!.id, value: words });
  },
  say: (user, text) => void fake.userSends({ user, channel: CHANNEL, text }),
  sendFile: (user, name, data, caption) =>
    void fake.userSends({ user, channel: CHANNEL, text: caption, files: [{ name, data }] }),
  botSaid: (pattern) =>
    fake
      .waitForMessage((m) => m.fromBot && !m.ephemeralFor && pattern.test(m.text), 10_000)
      .then((m) => m.text),
  fileSent: (prefix) =>
    fake
      .waitForMessage((m) => m.fromBot && m.files.some((f) => f.name.startsWith(prefix)), 10_000)
      .then((m) => m.files.find((f) => f.name.startsWith(prefix))!.data!),
});
