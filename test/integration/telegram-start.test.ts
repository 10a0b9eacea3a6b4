// Starting the Telegram channel when the Bot API cannot be reached, does not answer, or refuses the token.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InboundEvent } from '../../src/channels/contract.js';
import {
  FIRST_ANSWER_MS,
  TelegramAuthError,
  TelegramChannel,
} from '../../src/channels/telegram/telegram-channel.js';
import { openStore, type Store } from '../../src/store/store.js';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram/server.js';
import { FakeClock } from '../support/fake-clock.js';
import { OWNER } from '../support/telegram-setup.js';
import { startTestDaemon } from '../support/test-daemon.js';
import { waitFor } from '../support/wait.js';

let fake: FakeTelegram;
let clock: FakeClock;
let errors: string[];
let inbound: InboundEvent[];
let reconnects: number;
let channel: TelegramChannel;

beforeEach(async () => {
  fake = await startFakeTelegram();
  clock = new FakeClock();
  errors = [];
  inbound = [];
  reconnects = 0;
  channel = makeChannel(fake.token);
});

afterEach(async () => {
  await channel.stop();
  await fake.close();
});

function makeChannel(token: string): TelegramChannel {
  return new TelegramChannel({
    token,
    apiRoot: fake.apiRoot,
    clock,
    onError: (line) => errors.push(line),
    onReconnect: () => reconnects++,
  });
}

const start = () => channel.start((event) => inbound.push(event));
const failures = (n: number) => waitFor(`${n} failure line(s)`, () => errors.length >= n);

describe('Telegram channel start', () => {
  it('returns at once when the API cannot be reached, retries 1 s doubling in the background, one line each, and polls once it is back', async () => {
    fake.setOffline(true);
    await start();
    expect(errors).toHaveLength(1);
    const root = fake.apiRoot.replace(/[.]/g, '\\.');
    expect(errors[0]).toMatch(new RegExp(`^telegram: cannot reach ${root}: .*; retrying in 1 s$`));
    clock.advance(1_000);
    await failures(2);
    expect(errors[1]).toMatch(/retrying in 2 s$/);
    clock.advance(2_000);
    await failures(3);
    expect(errors[2]).toMatch(/retrying in 4 s$/);
    // One line each: no stack, no second line, never the token.
    for (const line of errors) {
      expect(line).not.toContain('\n');
      expect(line).not.toContain(fake.token.split(':')[1]);
    }
    fake.setOffline(false);
    clock.advance(4_000);
    await waitFor('polling', () => fake.isPolling());
    expect(reconnects).toBe(1);
    fake.userSendsText({ userId: OWNER, text: 'hello after the outage' });
    await waitFor('the message', () =>
      inbound.some((e) => e.type === 'text' && e.text === 'hello after the outage'),
    );
    expect(fake.calls.filter((c) => c.method === 'getMe' && c.status === 200)).toHaveLength(1);
  });

  it('returns after FIRST_ANSWER_MS when getMe is not answered, and stop() ends the request under way', async () => {
    fake.stallNext('getMe', 600_000);
    const starting = start();
    await fake.waitForCall('getMe');
    clock.advance(FIRST_ANSWER_MS);
    await starting;
    await channel.stop();
    expect(clock.pendingTimers).toBe(0);
    expect(fake.isPolling()).toBe(false);
  });

  it('stops retrying at once when stopped', async () => {
    fake.setOffline(true);
    await start();
    expect(errors).toHaveLength(1);
    await channel.stop();
    expect(clock.pendingTimers).toBe(0);
    fake.setOffline(false);
    clock.advance(120_000);
    expect(errors).toHaveLength(1);
    expect(fake.calls.filter((c) => c.method === 'getMe')).toHaveLength(0);
  });

  it('fails at once when Telegram refuses the token', async () => {
    channel = makeChannel(`${fake.token.split(':')[0]}:not-the-token`);
    await expect(start()).rejects.toThrow(TelegramAuthError);
    await expect(start()).rejects.toThrow(
      /^telegram refused the bot token \(401 Unauthorized\): check channels\.telegram\.token$/,
    );
    expect(clock.pendingTimers).toBe(0);
    expect(errors).toEqual([]);
  });
});

describe('serve with an unreachable Telegram', () => {
  let dir: string;
  let store: Store;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ab-tg-start-'));
    store = openStore({ dir });
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts the daemon (the channel keeps trying) and stops it at once', async () => {
    fake.setOffline(true);
    const { daemon, hosted } = await startTestDaemon(
      store,
      [],
      [
        {
          channel,
          allowedUsers: new Set([String(OWNER)]),
          defaultChats: [{ chatId: String(OWNER) }],
          exclusive: true,
        },
      ],
    );
    expect(hosted).toEqual(['telegram']);
    expect(errors).toHaveLength(1);
    await daemon.stop();
    expect(clock.pendingTimers).toBe(0);
  });
});
