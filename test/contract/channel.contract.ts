// The channel contract, one suite for every chat platform (Telegram, Discord, Slack): each platform's
// `*.contract.test.ts` runs it with a harness over its fake server and the real client library.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Channel, ChatTarget } from '../../src/channels/contract.js';
import { encodeButton } from '../../src/channels/callback-data.js';
import { systemClock } from '../../src/core/clock.js';
import { ChannelRelay } from '../../src/sessions/channel-relay.js';
import { openStore, type Store } from '../../src/store/store.js';
import { openPrompt, permissionPrompt, relaySession } from '../support/temp-store.js';
import { waitFor } from '../support/wait.js';

/** A message with buttons the bot sent, as the platform's fake holds it (live: edits show). */
export type Shown = unknown;
/** What a press returns, to find what the presser alone was told. */
export type Press = unknown;

export interface ContractHarness {
  /** Starts the fake; the channel (not started) and the chat prompts and messages go to. */
  setUp(): Promise<{ channel: Channel; chat: ChatTarget }>;
  tearDown(): Promise<void>;
  owner: string;
  stranger: string;
  /** How the platform shows who answered (`<@U…>`, `telegram:123`). */
  shownAs(user: string): string;
  /** The bot's message with buttons whose text includes `words`. */
  prompt(words: string): Promise<Shown>;
  labels(prompt: Shown): string[];
  text(prompt: Shown): string;
  /** Presses the button whose label starts with `label` (`force`: even if it is not shown now). */
  press(user: string, prompt: Shown, label: string, force?: boolean): Press;
  /** Presses a button of `prompt` carrying `data` (forged data, an old message's data). */
  pressData(user: string, prompt: Shown, data: string): Press;
  /** The presser alone was told something matching `pattern` (an ephemeral reply, a callback answer). */
  toldPrivately(press: Press, pattern: RegExp): Promise<void>;
  /** Nothing anyone else sees in the chat matches `pattern`. */
  saidPublicly(pattern: RegExp): boolean;
  /** "Other…" and the words, the platform's way (a form, or a reply to the prompt). */
  answerWithWords(user: string, prompt: Shown, words: string): Promise<void>;
  say(user: string, text: string): void;
  sendFile(user: string, name: string, data: Buffer, caption: string): void;
  /** A message from the bot in the chat whose text matches. */
  botSaid(pattern: RegExp): Promise<string>;
  /** The bytes of the first file whose name starts with `prefix` the bot sent to the chat. */
  fileSent(prefix: string): Promise<Buffer>;
}

const SESSION = 'aaaaaaaa-0000-4000-8000-00000000c0de';

export function channelContract(platform: string, harness: ContractHarness): void {
  describe(`${platform}: the channel contract`, () => {
    let dir: string;
    let store: Store;
    let relayStore: Store;
    let relay: ChannelRelay;

    beforeEach(async () => {
      dir = mkdtempSync(path.join(tmpdir(), `ab-contract-${platform}-`));
      const { channel, chat } = await harness.setUp();
      store = openStore({ dir });
      relayStore = openStore({ dir });
      relay = new ChannelRelay({
        channel,
        store: relayStore,
        clock: systemClock,
        chats: [chat],
        allowedUsers: new Set([harness.owner]),
        outputThreshold: 1500,
        isAlive: () => true,
      });
      expect(await relay.start()).toBe(true);
      relaySession(store, SESSION, channel.name);
    });

    afterEach(async () => {
      await relay.stop();
      relayStore.close();
      store.close();
      await harness.tearDown();
      rmSync(dir, { recursive: true, force: true });
    });

    const ask = (command: string) =>
      openPrompt(
        store,
        SESSION,
        permissionPrompt({ detail: `Bash command\n\n${command}\n\nDo you want to proceed?`, key: command }),
      );
    const status = (id: string) => store.prompts.get(id)?.status;

    it('a prompt shows the command and a button per option; the owner answers it once, and it then says what and who', async () => {
      const record = ask('touch contract.txt');
      const prompt = await harness.prompt('touch contract.txt');
      const labels = harness.labels(prompt);
      for (const option of ['1. Yes', '2. Yes, and always allow', '3. No'])
        expect(labels.some((l) => l.startsWith(option))).toBe(true);
      expect(labels.some((l) => /No, and say why/.test(l))).toBe(true);
      const press = harness.press(harness.owner, prompt, '1. Yes');
      await waitFor('the answer', () => status(record.id) === 'reply_received');
      await harness.toldPrivately(press, /Answered: 1\. Yes/);
      expect(store.prompts.get(record.id)?.decidedBy).toBe(`${platform}:${harness.owner}`);
      store.prompts.markInjected(store.prompts.get(record.id)!, '1', 'operator');
      await waitFor('the outcome shown', () => {
        const text = harness.text(prompt);
        return (
          harness.labels(prompt).length === 0 &&
          text.includes('1. Yes') &&
          text.includes(harness.shownAs(harness.owner))
        );
      });
      // Pressed again (an old message): nothing more happens.
      const again = harness.press(harness.owner, prompt, '1. Yes', true);
      await harness.toldPrivately(again, /Not applied: already/);
    });

    it("a stranger's press changes nothing; they alone are told", async () => {
      const record = ask('touch stranger.txt');
      const prompt = await harness.prompt('touch stranger.txt');
      const press = harness.press(harness.stranger, prompt, '1. Yes');
      await harness.toldPrivately(press, /not allowed/);
      expect(status(record.id)).toBe('awaiting_reply');
      expect(harness.labels(prompt).length).toBeGreaterThan(0);
      expect(harness.saidPublicly(/not allowed/)).toBe(false);
    });

    it('forged button data changes nothing: not ours, another prompt, a wrong nonce', async () => {
      const record = ask('touch forged.txt');
      const prompt = await harness.prompt('touch forged.txt');
      await harness.toldPrivately(
        harness.pressData(harness.owner, prompt, 'ans:zzzz'),
        /not from agent-bridge/,
      );
      const wrongNonce = encodeButton(record.id, SESSION, '0'.repeat(32), '1');
      await harness.toldPrivately(harness.pressData(harness.owner, prompt, wrongNonce), /Not applied/);
      const otherPrompt = encodeButton('00000000-0000-4000-8000-000000000000', SESSION, record.nonce, '1');
      await harness.toldPrivately(harness.pressData(harness.owner, prompt, otherPrompt), /Not applied/);
      expect(status(record.id)).toBe('awaiting_reply');
    });

    it('a press after the prompt expired changes nothing', async () => {
      const record = openPrompt(
        store,
        SESSION,
        permissionPrompt({ detail: 'Bash command\n\ntouch late.txt', key: 'late' }),
        500,
      );
      const prompt = await harness.prompt('touch late.txt');
      await waitFor('the expiry', () => Date.now() > record.expiresAt);
      await harness.toldPrivately(
        harness.press(harness.owner, prompt, '1. Yes'),
        /Not applied: the prompt expired/,
      );
      expect(status(record.id)).toBe('awaiting_reply');
    });

    it('"No, and say why…": the words deny it with that reason', async () => {
      const record = ask('touch words.txt');
      const prompt = await harness.prompt('touch words.txt');
      await harness.answerWithWords(harness.owner, prompt, 'use the staging db');
      await waitFor('the answer', () => status(record.id) === 'reply_received');
      expect(store.prompts.get(record.id)?.reply).toEqual({
        type: 'choice',
        number: 3,
        text: 'use the staging db',
      });
    });

    it('text goes to the session; a command is answered; a stranger is ignored', async () => {
      harness.say(harness.stranger, 'let me in');
      harness.say(harness.owner, 'run the tests please');
      await waitFor('typed', () =>
        store.channels.takeInputs(SESSION).some((i) => i.text === 'run the tests please'),
      );
      harness.say(harness.owner, ' /sessions');
      await harness.botSaid(/aaaaaaaa · claude · app/);
      expect(store.channels.takeInputs(SESSION).some((i) => i.text === 'let me in')).toBe(false);
    });

    it("the agent's messages arrive; a long one as a file; [ATTACH: …] sends a file from its outputs folder", async () => {
      store.channels.addMessage(SESSION, 'message', 'short reply');
      await harness.botSaid(/^short reply/);
      store.channels.addMessage(SESSION, 'message', 'z'.repeat(5_000));
      expect((await harness.fileSent('response-')).toString()).toBe('z'.repeat(5_000));
      const outputs = path.join(dir, 'outputs', 'app');
      mkdirSync(outputs, { recursive: true });
      writeFileSync(path.join(outputs, 'report.txt'), 'all green');
      store.channels.addMessage(SESSION, 'message', 'The report [ATTACH: report.txt]');
      expect((await harness.fileSent('report.txt')).toString()).toBe('all green');
    });

    it("a person's file is saved into the uploads folder and its path typed, with the words", async () => {
      const bytes = Buffer.from('notes\n\u00e9t\u00e9\n');
      harness.sendFile(harness.owner, 'notes.txt', bytes, 'read this');
      const input = await waitFor('the input', () =>
        store.channels.takeInputs(SESSION).find((i) => i.text.startsWith('read this')),
      );
      const saved = input.text.split('\n')[1]!;
      expect(saved).toBe(path.join(dir, 'uploads', 'app', 'notes.txt'));
      expect(readFileSync(saved).equals(bytes)).toBe(true);
    });
  });
}
