import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { jetstream, jetstreamManager, AckPolicy } from '@nats-io/jetstream';
import { connect, nkeyAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClusterHub } from '../../src/cluster/cluster-hub.js';
import type { ClusterNode } from '../../src/cluster/cluster-node.js';
import { newUserKey } from '../../src/cluster/server-config.js';
import { answerPrompt } from '../../src/sessions/answer-prompt.js';
import { endHubAndAlpha, nodeSession, startHubAndAlpha, type Machine } from '../support/cluster-world.js';
import { NATS_SERVER, NO_NATS, startNats, type NatsWorld } from '../support/nats-server.js';
import { openPrompt, permissionPrompt } from '../support/temp-store.js';
import { waitFor } from '../support/wait.js';

/**
 * Attacks on the cluster's bus, with a real nats-server configured as `agent-bridge cluster init` does: a
 * stranger without a key, and a compromised node (beta's key in an attacker's hands) trying to read, forge or
 * answer what belongs to node alpha. The server's permissions refuse what they can; the receiving side
 * refuses the rest (a node speaks only for its own sessions; a node applies only answers to its own prompts).
 */

let nats: NatsWorld;
let hubMachine: Machine;
let alphaMachine: Machine;
let hub: ClusterHub;
let alpha: ClusterNode;
const connections: NatsConnection[] = [];

beforeEach(async () => {
  if (NATS_SERVER) ({ nats, hubMachine, alphaMachine, hub, alpha } = await startHubAndAlpha());
});

afterEach(async () => {
  if (!NATS_SERVER) return;
  await Promise.all(connections.splice(0).map((c) => c.close().catch(() => undefined)));
  await endHubAndAlpha({ nats, hubMachine, alphaMachine, hub, alpha });
});

/** A raw client with a machine's key, as an attacker holding it would connect. */
async function as(name: string): Promise<NatsConnection> {
  const seed = readFileSync(nats.keyFile(name), 'utf8').trim();
  const nc = await connect({
    servers: nats.url,
    authenticator: nkeyAuthenticator(new TextEncoder().encode(seed)),
    inboxPrefix: `_INBOX_${name}`,
  });
  connections.push(nc);
  return nc;
}

const VIOLATION = /Permissions Violation/;

/** A subscription the server refuses: it closes with the violation, and nothing is received. */
async function subscriptionRefused(nc: NatsConnection, subject: string): Promise<string> {
  const sub = nc.subscribe(subject);
  const reason = await sub.closed;
  return reason instanceof Error ? reason.message : String(reason);
}

/** A publish the server refuses (asked as a request, so the refusal comes back to the sender). */
async function publishRefused(nc: NatsConnection, subject: string, data = '{}'): Promise<string> {
  return nc.request(subject, data, { timeout: 2_000 }).then(
    () => 'delivered',
    (error: Error) => error.message,
  );
}

/** The audit log's entries, as written. */
const auditOf = (m: Machine) =>
  readFileSync(m.store.audit.file, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { event: string; reason?: string });

const audited = (reason: RegExp) =>
  waitFor('the refusal audited on the hub', () =>
    auditOf(hubMachine).find((e) => e.event === 'CLUSTER_REFUSED' && reason.test(e.reason ?? '')),
  );

describe.skipIf(!NATS_SERVER)(`the cluster's bus under attack${NO_NATS}`, () => {
  it('refuses clients without a key, or with a key it does not list', async () => {
    await expect(connect({ servers: nats.url })).rejects.toThrow(/Authorization Violation/);
    const stranger = newUserKey();
    await expect(
      connect({
        servers: nats.url,
        authenticator: nkeyAuthenticator(new TextEncoder().encode(stranger.seed)),
      }),
    ).rejects.toThrow(/Authorization Violation/);
  });

  it("a node cannot read another node's commands, the events stream, or anyone's replies", async () => {
    const beta = await as('beta');
    for (const subject of [
      'ab.cmd.alpha.>',
      'ab.cmd.>',
      'ab.ev.>',
      '>',
      '_INBOX_alpha.>',
      '_INBOX_hub.>',
      'ab.ping.alpha',
    ])
      expect(await subscriptionRefused(beta, subject)).toMatch(VIOLATION);
    const jsm = await jetstreamManager(await as('beta'), { checkAPI: false });
    await expect(jsm.consumers.info('AB_COMMANDS', 'node_alpha')).rejects.toThrow(VIOLATION);
    await expect(jsm.streams.getMessage('AB_COMMANDS', { seq: 1 })).rejects.toThrow(VIOLATION);
    await expect(jsm.streams.getMessage('AB_EVENTS', { seq: 1 })).rejects.toThrow(VIOLATION);
    await expect(
      jsm.consumers.add('AB_EVENTS', { durable_name: 'spy', ack_policy: AckPolicy.None }),
    ).rejects.toThrow(VIOLATION);
    // Its own consumer's name, with another node's commands as the filter: the subject it may use names its own.
    await expect(
      jsm.consumers.add('AB_COMMANDS', {
        durable_name: 'node_beta',
        filter_subject: 'ab.cmd.alpha.>',
        ack_policy: AckPolicy.Explicit,
      }),
    ).rejects.toThrow(VIOLATION);
  });

  it("a node cannot answer another node's prompts: it may publish no command, nor speak under another name", async () => {
    const id = nodeSession(alphaMachine);
    const prompt = openPrompt(alphaMachine.store, id, permissionPrompt());
    await waitFor('mirrored', () => hubMachine.store.prompts.get(prompt.id));
    const beta = await as('beta');
    const forged = JSON.stringify({
      requestId: 'forged',
      promptId: prompt.id,
      sessionId: id,
      nonce: prompt.nonce,
      reply: { type: 'choice', number: 1 },
      decidedBy: 'telegram:4242',
    });
    expect(await publishRefused(beta, 'ab.cmd.alpha.answer', forged)).toMatch(VIOLATION);
    expect(await publishRefused(beta, 'ab.cmd.beta.answer', forged)).toMatch(VIOLATION);
    expect(await publishRefused(beta, `ab.ev.alpha.prompt.${id}`, '{}')).toMatch(VIOLATION);
    await expect(jetstream(beta, { checkAPI: false }).publish('ab.cmd.alpha.answer', forged)).rejects.toThrow(
      VIOLATION,
    );
    expect(alphaMachine.store.prompts.get(prompt.id)!.status).toBe('awaiting_reply');
  });

  it('the hub refuses what a node says of sessions and prompts that are not its own', async () => {
    const id = nodeSession(alphaMachine);
    const prompt = openPrompt(alphaMachine.store, id, permissionPrompt());
    await waitFor('mirrored', () => hubMachine.store.prompts.get(prompt.id));
    const js = jetstream(await as('beta'), { checkAPI: false });
    const now = Date.now();
    // beta claims alpha's session as its own…
    await js.publish(
      `ab.ev.beta.session.${id}`,
      JSON.stringify({
        id,
        agent: 'shell',
        cwd: '/',
        label: 'stolen',
        hostname: 'evil',
        startedAt: now,
        endedAt: now,
        exitCode: 0,
        status: 'completed',
        agentSessionId: null,
        usage: null,
        answerKey: null,
        name: null,
        firstPrompt: null,
      }),
    );
    await audited(/belongs to alpha/);
    // …says alpha's prompt was answered, under its own name…
    const { screenKey: _screenKey, ...mirrored } = hubMachine.store.prompts.get(prompt.id)!;
    await js.publish(
      `ab.ev.beta.prompt.${id}`,
      JSON.stringify({ ...mirrored, status: 'injected', decidedBy: 'evil' }),
    );
    await audited(/is not beta's/);
    // …and sends what is not an event at all.
    await js.publish(`ab.ev.beta.message.${id}`, 'not json');
    await audited(/not JSON/);
    const mirror = hubMachine.store.sessions.get(id)!;
    expect(mirror).toMatchObject({ node: 'alpha', label: 'api', status: 'active' });
    expect(hubMachine.store.prompts.get(prompt.id)!.status).toBe('awaiting_reply');
    // The hub's own sessions are no node's to speak of.
    const own = 'aaaaaaaa-0000-4000-8000-000000000001';
    hubMachine.store.sessions.create({ id: own, agent: 'shell', cwd: '/', pid: null, recording: null });
    await js.publish(
      `ab.ev.beta.message.${own}`,
      JSON.stringify({ id: 1, kind: 'message', text: 'hi', createdAt: now }),
    );
    await audited(/no session of beta here/);
    expect(hubMachine.store.channels.messagesAfter(0).filter((m) => m.sessionId === own)).toEqual([]);
  });

  it('a node applies only answers to its own prompts, in the session and with the nonce they name', async () => {
    const id = nodeSession(alphaMachine);
    const other = nodeSession(alphaMachine, 'web');
    const prompt = openPrompt(alphaMachine.store, id, permissionPrompt());
    const secret = openPrompt(
      alphaMachine.store,
      id,
      permissionPrompt({ kind: 'free_text', choices: [], key: 'pw', secret: true }),
    );
    await waitFor('mirrored', () => hubMachine.store.prompts.get(secret.id));
    // The hub is trusted to send commands, yet its commands are checked like any outside input.
    const js = jetstream(await as('hub'));
    const command = (fields: Record<string, unknown>) =>
      JSON.stringify({
        requestId: `attack-${Math.random()}`,
        promptId: prompt.id,
        sessionId: id,
        nonce: prompt.nonce,
        reply: { type: 'choice', number: 1 },
        decidedBy: 'telegram:4242',
        ...fields,
      });
    await js.publish('ab.cmd.alpha.answer', command({ sessionId: other }));
    await js.publish('ab.cmd.alpha.answer', command({ nonce: '0'.repeat(32) }));
    await js.publish('ab.cmd.alpha.answer', command({ reply: { type: 'choice', number: 9 } }));
    await js.publish(
      'ab.cmd.alpha.answer',
      command({ reply: { type: 'choice', number: 3, text: 'because\u001b[2J' } }),
    );
    await js.publish(
      'ab.cmd.alpha.answer',
      command({ promptId: secret.id, nonce: secret.nonce, reply: { type: 'text', text: 'hunter2' } }),
    );
    await js.publish(
      'ab.cmd.alpha.answer',
      command({ reply: { type: 'choice', number: 1 }, extra: 'field' }),
    );
    const rejected = await waitFor('all refused on alpha', () => {
      const refusals = auditOf(alphaMachine).filter(
        (e) => e.event === 'REPLY_REJECTED' || e.event === 'CLUSTER_REFUSED',
      );
      return refusals.length >= 6 ? refusals.map((e) => e.reason) : null;
    });
    expect(rejected).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/no such prompt in that session/),
        expect.stringMatching(/not valid for the prompt/),
        expect.stringMatching(/no choice 9/),
        expect.stringMatching(/control character/),
        expect.stringMatching(/secret answer must come sealed/),
        expect.stringMatching(/Unrecognized key|unrecognized/i),
      ]),
    );
    expect(alphaMachine.store.prompts.get(prompt.id)!.status).toBe('awaiting_reply');
    expect(alphaMachine.store.prompts.get(secret.id)!.status).toBe('awaiting_reply');
    // The real answer, through the hub, still goes through.
    expect(
      answerPrompt(hubMachine.store, { promptRef: prompt.id, raw: '1', decidedBy: 'telegram:1' }).ok,
    ).toBe(true);
    await waitFor('applied', () => alphaMachine.store.prompts.get(prompt.id)!.status === 'reply_received');
  });
});

describe.skipIf(!NATS_SERVER)(`the cluster over TLS${NO_NATS}`, () => {
  it('refuses plain connections, and connects with the CA that signed the server', async () => {
    const dir = nats.dir;
    const certs = makeCertificates(dir);
    const tlsNats = await startNats({ nodes: ['alpha'], tls: { cert: certs.cert, key: certs.key } });
    try {
      const seed = readFileSync(tlsNats.keyFile('alpha'), 'utf8').trim();
      const auth = nkeyAuthenticator(new TextEncoder().encode(seed));
      await expect(connect({ servers: tlsNats.url, authenticator: auth, tls: null })).rejects.toThrow();
      await expect(
        connect({ servers: tlsNats.url.replace('nats:', 'tls:'), authenticator: auth }),
      ).rejects.toThrow();
      const nc = await connect({
        servers: tlsNats.url.replace('nats:', 'tls:'),
        authenticator: auth,
        tls: { caFile: certs.ca },
        inboxPrefix: '_INBOX_alpha',
      });
      expect(nc.info?.tls_required).toBe(true);
      await nc.close();
    } finally {
      await tlsNats.close();
    }
  });
});

/** A CA and a certificate for 127.0.0.1 signed by it (openssl, as the README shows). */
function makeCertificates(dir: string): { ca: string; cert: string; key: string } {
  const file = (name: string) => path.join(dir, name);
  const run = (args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  run([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=test-ca',
    '-keyout',
    file('ca-key.pem'),
    '-out',
    file('ca.pem'),
  ]);
  run([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=127.0.0.1',
    '-keyout',
    file('server-key.pem'),
    '-out',
    file('server.csr'),
  ]);
  writeFileSync(file('ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  run([
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca-key.pem'),
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    file('ext.cnf'),
    '-out',
    file('server.pem'),
  ]);
  return { ca: file('ca.pem'), cert: file('server.pem'), key: file('server-key.pem') };
}
