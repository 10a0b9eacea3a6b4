import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { LAUNCH_TIMEOUT_MS, type ClusterHub } from '../../src/cluster/cluster-hub.js';
import type { ClusterNode } from '../../src/cluster/cluster-node.js';
import { connectCluster } from '../../src/cluster/connection.js';
import { subjects } from '../../src/cluster/names.js';
import { hubRemoteSessions } from '../../src/cluster/remote.js';
import { systemClock, type Clock } from '../../src/core/clock.js';
import { LiveSessions } from '../../src/sessions/live-sessions.js';
import { MachineAwayError, type RemoteSessions } from '../../src/sessions/remote-sessions.js';
import { SessionsWebBackend } from '../../src/sessions/web-backend.js';
import {
  endHubAndAlpha,
  machine,
  nodeSession,
  startHub,
  startNode,
  type Machine,
} from '../support/cluster-world.js';
import { FakeClock } from '../support/fake-clock.js';
import { NATS_SERVER, NO_NATS, startNats, type NatsWorld } from '../support/nats-server.js';
import { waitFor } from '../support/wait.js';

// What the hub's web UI does with a machine of the cluster that is away: a start or a stop is refused at once
// (nothing is asked of the node, nothing happens later), a start the hub gave up on never happens later, and
// whether the machine is there is known from the hub's last ping (asked when it matters, never on a timer).
// The hub's clock is a fake one: its timeouts run when the test says.

let nats: NatsWorld;
let hubMachine: Machine;
let alphaMachine: Machine;
let hub: ClusterHub | null;
let alpha: ClusterNode | null;
let hubClock: FakeClock;
let remote: RemoteSessions;
let backend: SessionsWebBackend;
/** What alpha's node was asked to do (its actions record it, as its session starter and stopper would). */
let launched: string[];
let stopped: string[];

beforeEach(async () => {
  if (!NATS_SERVER) return;
  nats = await startNats({ nodes: ['alpha'] });
  hubMachine = machine('hub');
  alphaMachine = machine('alpha');
  hubClock = new FakeClock(Date.now());
  hub = await startHub(nats, hubMachine, nats.url, 'hub', hubClock);
  launched = [];
  stopped = [];
  alpha = await startAlpha();
  remote = hubRemoteSessions(() => hub);
  backend = new SessionsWebBackend({
    store: hubMachine.store,
    watchStore: hubMachine.clusterStore,
    clock: hubClock,
    live: new LiveSessions(),
    version: 'test',
    cwd: '/',
    remote,
  });
  await waitFor('alpha known to the hub', () => hub!.knows('alpha'));
});

afterEach(async () => {
  if (!NATS_SERVER) return;
  backend.close();
  await endHubAndAlpha({ nats, hubMachine, alphaMachine, hub, alpha });
});

/** Node alpha; `clock`: the time its machine says it is. */
function startAlpha(clock: Clock = systemClock): Promise<ClusterNode> {
  return startNode(
    nats,
    'alpha',
    alphaMachine,
    nats.url,
    {
      launch: async () => {
        const id = nodeSession(alphaMachine, 'started');
        launched.push(id);
        return { text: `started (session ${id.slice(0, 8)})`, sessionId: id };
      },
      stop: async (sessionId) => {
        stopped.push(sessionId);
        alphaMachine.store.sessions.end(sessionId, 'terminated', null);
        return true;
      },
    },
    [],
    clock,
  );
}

/** What the hub put in its outbox for alpha to start or stop (sent or not). */
const controls = () =>
  hubMachine.store.db.prepare("SELECT id FROM cluster_outbox WHERE id LIKE 'control:%'").all() as Array<{
    id: string;
  }>;
const sentControls = () =>
  hubMachine.store.db
    .prepare("SELECT id FROM cluster_outbox WHERE id LIKE 'control:%' AND sent_at IS NOT NULL")
    .all().length;

/** The machines listed (as the web UI lists them: each pinged), until the hub knows what `check` waits for. */
const hubSees = <T>(what: string, check: () => T) =>
  waitFor(what, async () => {
    await remote.nodes();
    return check();
  });

/** alpha's serve is gone (killed): it answers nothing, and the hub has noticed. */
async function alphaGone(): Promise<void> {
  await alpha!.stop();
  alpha = null;
  await hubSees('alpha seen away', () => remote.away('alpha'));
}

/** What alpha's audit log says it refused. */
const refusedAudit = () =>
  readFileSync(alphaMachine.store.audit.file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.event === 'CLUSTER_REFUSED');

/** A promise's outcome, looked at without waiting for it. */
function watch<T>(promise: Promise<T>): { settled: () => boolean; outcome: Promise<T | Error> } {
  let settled = false;
  const outcome = promise.then(
    (value) => ((settled = true), value),
    (error: Error) => ((settled = true), error),
  );
  return { settled: () => settled, outcome };
}

const START = { agent: 'custom', cwd: '~', args: ['sleep', '600'], node: 'alpha' };

describe.skipIf(!NATS_SERVER)(`the hub's web UI and a machine that is away${NO_NATS}`, () => {
  it('refuses a start on an away node at once (409, when it was last seen), asking the node nothing', async () => {
    await alphaGone();
    const attempt = watch(backend.start(START, 'web:127.0.0.1'));
    // Refused, or (the fault) asked of the node and waited for 30 s.
    await waitFor('an answer, or a request sent', () => attempt.settled() || controls().length > 0);
    expect(attempt.settled()).toBe(true);
    const refusal = await attempt.outcome;
    expect(refusal).toBeInstanceOf(MachineAwayError);
    expect(refusal).toMatchObject({
      statusCode: 409,
      node: 'alpha',
      message: expect.stringMatching(
        /^alpha is away \(last seen (moments|\d+ min) ago\): start it there when it is back$/,
      ),
    });
    expect(controls()).toEqual([]);
    // Back: nothing was waiting for it.
    alpha = await startAlpha();
    await hubSees('alpha seen back', () => remote.away('alpha') === null);
    expect(launched).toEqual([]);
    expect((await backend.nodes()).map(({ name, online, lastSeen }) => ({ name, online, lastSeen }))).toEqual(
      [{ name: 'alpha', online: true, lastSeen: hubClock.now() }],
    );
  });

  it('a start the hub gave up on (the node answered no request in time) is refused by the node when it comes, and audited', async () => {
    // Alpha's machine answers pings, but its serve takes no request (hung, or killed just after the ping).
    await alpha!.stop();
    alpha = null;
    const zombie = await answersPingsOnly();
    const attempt = watch(backend.start(START, 'web:127.0.0.1'));
    await waitFor('the start sent to alpha', () => sentControls() === 1);
    hubClock.advance(LAUNCH_TIMEOUT_MS);
    const failure = await attempt.outcome;
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(
      /^alpha did not answer in 30 s: nothing was started \(the request has expired\)/,
    );
    await zombie.close();
    // Its serve is back, its clock as the hub's (the 30 s went by there too): the start is not applied.
    alpha = await startAlpha(new FakeClock(hubClock.now()));
    const refusal = await waitFor(
      'the start refused, or applied',
      () => refusedAudit()[0] ?? (launched.length > 0 ? 'launched' : null),
    );
    expect(launched).toEqual([]);
    expect(refusal).toMatchObject({
      subject: 'ab.cmd.alpha.control',
      by: 'web:127.0.0.1',
      reason: expect.stringMatching(
        /^the start reached alpha 5 s after it expired: the hub had given up on it$/,
      ),
    });
    expect(hubMachine.store.sessions.list().filter((s) => s.node === 'alpha')).toEqual([]);
  });

  it("a start that got through after the hub gave up (the node's clock far behind) is stopped again", async () => {
    await alpha!.stop();
    alpha = null;
    const zombie = await answersPingsOnly();
    const asked = hubClock.now();
    const attempt = watch(backend.start(START, 'web:127.0.0.1'));
    await waitFor('the start sent to alpha', () => sentControls() === 1);
    hubClock.advance(LAUNCH_TIMEOUT_MS);
    expect(await attempt.outcome).toBeInstanceOf(Error);
    await zombie.close();
    // Its clock says the request has not expired yet: it starts it, and the hub has it stopped.
    alpha = await startAlpha(new FakeClock(asked));
    await waitFor('started on alpha', () => launched.length === 1);
    await waitFor('and stopped again', () => stopped.includes(launched[0]!));
    expect(hubMachine.log.join('\n')).toMatch(
      /alpha started .* after this hub gave up on it; asked it to stop/,
    );
  });

  it('refuses to stop a session of an away node (409), and stops it once the node is back', async () => {
    await alpha!.stop();
    const id = nodeSession(alphaMachine);
    alpha = await startAlpha();
    await waitFor('the mirrored session', () => hubMachine.store.sessions.get(id));
    await alphaGone();
    expect(remote.away('alpha')).toEqual({ lastSeen: expect.any(Number) });
    const refusal = await backend.stop(id).then(
      () => null,
      (error: Error) => error,
    );
    expect(refusal).toBeInstanceOf(MachineAwayError);
    expect(refusal).toMatchObject({
      statusCode: 409,
      message: expect.stringMatching(
        /^alpha is away \(last seen (moments|\d+ min) ago\): stop it when it is back$/,
      ),
    });
    expect(controls()).toEqual([]);
    expect((await backend.nodes()).map(({ online }) => online)).toEqual([false]);

    alpha = await startAlpha();
    await hubSees('alpha seen back', () => remote.away('alpha') === null);
    expect(await backend.stop(id)).toBe(true);
    await waitFor('stopped on alpha', () => stopped.includes(id));
    expect(stopped).toEqual([id]);
  });
});

/** A connection with alpha's key that answers the hub's pings and nothing else. */
async function answersPingsOnly(): Promise<NatsConnection> {
  const nc = await connectCluster(
    { role: 'node', name: 'alpha', servers: [nats.url], credentials: nats.keyFile('alpha') },
    'test',
  );
  nc.subscribe(subjects.ping('alpha'), {
    callback: (error, message) => {
      if (!error) message.respond('{}');
    },
  });
  await nc.flush();
  await hubSees('alpha seen connected', () => remote.away('alpha') === null);
  return nc;
}

describe.skipIf(!NATS_SERVER)(`an answer to an away node${NO_NATS}`, () => {
  it('is taken, and says it waits for the node (queued)', async () => {
    const { openPrompt, permissionPrompt } = await import('../support/temp-store.js');
    await alpha!.stop();
    const id = nodeSession(alphaMachine);
    const p1 = openPrompt(alphaMachine.store, id, permissionPrompt());
    const p2 = openPrompt(alphaMachine.store, id, permissionPrompt({ key: 'second' }));
    alpha = await startAlpha();
    await waitFor(
      'mirrored',
      () => hubMachine.store.prompts.get(p1.id) && hubMachine.store.prompts.get(p2.id),
    );
    expect(backend.answer(p1.id, '1', 'web:x')).toMatchObject({ ok: true, queued: false });
    await alpha!.stop();
    alpha = null;
    await hubSees('away', () => remote.away('alpha'));
    expect(backend.answer(p2.id, '1', 'web:x')).toMatchObject({ ok: true, queued: true, node: 'alpha' });
  });
});
