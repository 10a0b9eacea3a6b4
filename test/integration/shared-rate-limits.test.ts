import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SharedRateLimits } from '../../src/cluster/shared-rate-limits.js';
import { waitFor } from '../support/wait.js';

/** Debian's redis-server (CI installs it); the tests say so in their names when it is not here. */
const REDIS = spawnSync('redis-server', ['--version']).status === 0;
const NO_REDIS = REDIS ? '' : ' (skipped: redis-server is not installed; apt-get install redis-server)';

const LIMITS = {
  user: { ratePerSec: 0.5, burst: 3 },
  channel: { ratePerSec: 2, burst: 10 },
};

let redis: ChildProcess;
let url: string;
const hubs: SharedRateLimits[] = [];

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeEach(async () => {
  if (!REDIS) return;
  const port = await freePort();
  url = `redis://127.0.0.1:${port}`;
  redis = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  redis.stdout!.on('data', (d) => (out += String(d)));
  await waitFor('redis ready', () => /Ready to accept connections/.test(out));
});

afterEach(async () => {
  if (!REDIS) return;
  for (const hub of hubs.splice(0)) hub.close();
  if (redis.exitCode === null) {
    const exited = new Promise((resolve) => redis.once('exit', resolve));
    redis.kill('SIGTERM');
    await exited;
  }
});

async function hub(): Promise<SharedRateLimits> {
  const shared = new SharedRateLimits(url, () => undefined);
  hubs.push(shared);
  await waitFor('the hub connected to Redis', () => shared.connected);
  return shared;
}

describe.skipIf(!REDIS)(`rate limits that hold across hubs (Redis)${NO_REDIS}`, () => {
  it('count one person once, whichever hub their messages reach', async () => {
    const a = (await hub()).limiter(LIMITS);
    const b = (await hub()).limiter(LIMITS);
    const from = (userId: string, chat: string) => ({ userId, channelKey: `telegram:${chat}` });
    const decisions = [
      await a.check(from('42', 'one')),
      await b.check(from('42', 'two')),
      await a.check(from('42', 'one')),
      await b.check(from('42', 'two')),
    ];
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions[3]).toMatchObject({ scope: 'user', retryAfterMs: expect.any(Number) });
    // Someone else is counted on their own.
    expect((await b.check(from('7', 'two'))).allowed).toBe(true);
  });

  it('go on, each hub counting alone, while Redis is away: a message is limited, never lost', async () => {
    const a = (await hub()).limiter(LIMITS);
    expect((await a.check({ userId: '42', channelKey: 'telegram:1' })).allowed).toBe(true);
    const exited = new Promise((resolve) => redis.once('exit', resolve));
    redis.kill('SIGTERM');
    await exited;
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await a.check({ userId: '9', channelKey: 'telegram:1' }));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
  });
});
