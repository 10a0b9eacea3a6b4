import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REFUSAL_WINDOW_MS } from '../../src/channels/web/refusal-audit.js';
import { webToken } from '../../src/cli/web-hosting.js';
import { FakeClock } from '../support/fake-clock.js';
import { rawRequest } from '../support/raw-http.js';
import { WEB_TOKEN, WebWorld } from '../support/web-world.js';

// Issue 12, item 4: ten bad tokens locked the right token out for a minute, and every refused request was one
// audit line (4,000 in 3 s). Now the right token always works, only failures are throttled (per address), and
// a burst of refusals is audited as its first line plus one line with the count. Time is a fake clock.

let clock: FakeClock;
let world: WebWorld;
beforeEach(async () => {
  clock = new FakeClock();
  world = await new WebWorld(clock).start();
});
afterEach(async () => world.close());

async function getConfig(credential: string) {
  const response = await rawRequest(
    world.port,
    ['GET /api/config HTTP/1.1', `Host: ${world.host}`, 'Connection: close', credential].join('\r\n'),
  );
  return response.status;
}

const refusals = () => world.auditOf('UNAUTHORIZED');

describe('a flood of bad tokens', () => {
  it('never locks out the right token, by header, by cookie or at the exchange', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 300; i++) {
      statuses.push(await getConfig(`Authorization: Bearer guess-${i}`));
      if (i % 50 === 49) {
        expect(await getConfig(`Authorization: Bearer ${WEB_TOKEN}`)).toBe(200);
        expect(await getConfig(`Cookie: agent_bridge_token=${WEB_TOKEN}`)).toBe(200);
      }
    }
    // Failures alone are throttled: ten a minute from one address, then 429.
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(new Set(statuses.slice(10))).toEqual(new Set([429]));
    const exchange = await rawRequest(
      world.port,
      [`GET /?token=${WEB_TOKEN} HTTP/1.1`, `Host: ${world.host}`, 'Connection: close'].join('\r\n'),
    );
    expect(exchange.status).toBe(302);
    // A minute later the address may fail again before being throttled.
    clock.advance(60_000);
    expect(await getConfig('Authorization: Bearer late-guess')).toBe(401);
  });

  it('is audited as one line at once and one line with the count, not a line a request', async () => {
    for (let i = 0; i < 200; i++) await getConfig(`Authorization: Bearer guess-${i}`);
    await getConfig(''); // no token at all
    expect(refusals()).toEqual([
      expect.objectContaining({ source: 'web', ip: '127.0.0.1', path: '/api/config', reason: 'wrong' }),
    ]);
    clock.advance(REFUSAL_WINDOW_MS);
    const [, burst] = refusals();
    expect(refusals()).toHaveLength(2);
    expect(burst).toMatchObject({ source: 'web', ip: '127.0.0.1', count: 200 });
    expect(burst!.reason).toBe('wrong 9, throttled 190, missing 1');
    // The flood is over: the next window has nothing to say, and says nothing.
    clock.advance(REFUSAL_WINDOW_MS * 3);
    expect(refusals()).toHaveLength(2);
    // A later refusal is a new burst, audited at once.
    await getConfig('Authorization: Bearer again');
    expect(refusals()).toHaveLength(3);
  });

  it('writes what a burst gathered when the server stops', async () => {
    for (let i = 0; i < 5; i++) await getConfig(`Authorization: Bearer guess-${i}`);
    await world.closeServer();
    expect(refusals().map((r) => r.count)).toEqual([undefined, 4]);
  });
});

describe('the token itself', () => {
  // The right token is never throttled, so guessing it must be hopeless: a short hand-written one is refused.
  it('is made unguessable, and a weak one in the token file is refused with what to do', () => {
    const made = webToken(world.dir);
    expect(made).toMatch(/^[\w-]{32}$/);
    expect(webToken(world.dir)).toBe(made);
    writeFileSync(path.join(world.dir, 'web-token'), 'hunter2\n');
    expect(() => webToken(world.dir)).toThrow(
      /could be guessed .*: delete the file and agent-bridge makes a new one/,
    );
  });
});
