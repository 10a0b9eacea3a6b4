import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import path from 'node:path';
import type { ClusterHub } from '../../src/cluster/cluster-hub.js';
import { hubRemoteSessions } from '../../src/cluster/remote.js';
import { systemClock } from '../../src/core/clock.js';
import { LiveSessions } from '../../src/sessions/live-sessions.js';
import { SessionsWebBackend } from '../../src/sessions/web-backend.js';
import type { ClusterNode } from '../../src/cluster/cluster-node.js';
import { answerPrompt } from '../../src/sessions/answer-prompt.js';
import { sendTextToSession } from '../../src/sessions/typed-text.js';
import {
  endHubAndAlpha,
  machine,
  nodeSession,
  startHub,
  startHubAndAlpha,
  startNode,
  type Machine,
} from '../support/cluster-world.js';
import { NATS_SERVER, NO_NATS, startNats, type NatsWorld } from '../support/nats-server.js';
import { openPrompt, permissionPrompt } from '../support/temp-store.js';
import { waitFor } from '../support/wait.js';

let nats: NatsWorld;
let hubMachine: Machine;
let alphaMachine: Machine;
let hub: ClusterHub | null;
let alpha: ClusterNode | null;

beforeEach(async () => {
  if (NATS_SERVER) ({ nats, hubMachine, alphaMachine, hub, alpha } = await startHubAndAlpha());
});

afterEach(async () => {
  if (NATS_SERVER) await endHubAndAlpha({ nats, hubMachine, alphaMachine, hub, alpha });
});

const mirrored = (id: string) => hubMachine.store.sessions.get(id);
const hubPrompt = (id: string) => hubMachine.store.prompts.get(id);

describe.skipIf(!NATS_SERVER)(`a hub mirrors a node's sessions, prompts and messages${NO_NATS}`, () => {
  it("lists a node's session under the node's name, with its prompt and what it said", async () => {
    const id = nodeSession(alphaMachine);
    alphaMachine.store.channels.addMessage(id, 'message', 'I will create the file now.');
    const prompt = openPrompt(alphaMachine.store, id, permissionPrompt());
    const session = await waitFor('the mirrored session', () => mirrored(id));
    expect(session).toMatchObject({ node: 'alpha', host: 'alpha', label: 'api', status: 'active' });
    expect(session.approveFrom).toEqual(['telegram']);
    const copy = await waitFor('the mirrored prompt', () => hubPrompt(prompt.id));
    expect(copy).toMatchObject({ sessionId: id, status: 'awaiting_reply', nonce: prompt.nonce });
    const messages = hubMachine.store.channels.messagesAfter(0).filter((m) => m.sessionId === id);
    expect(messages.map((m) => m.text)).toContain('I will create the file now.');
  });

  it('an answer given on the hub is decided by the node, once; a second answer is refused', async () => {
    const id = nodeSession(alphaMachine);
    const prompt = openPrompt(alphaMachine.store, id, permissionPrompt());
    await waitFor('the mirrored prompt', () => hubPrompt(prompt.id));
    const first = answerPrompt(hubMachine.store, { promptRef: prompt.id, raw: '1', decidedBy: 'telegram:1' });
    expect(first.ok).toBe(true);
    const decided = await waitFor('the node decided', () => {
      const record = alphaMachine.store.prompts.get(prompt.id)!;
      return record.status === 'reply_received' ? record : null;
    });
    expect(decided).toMatchObject({ decidedBy: 'telegram:1', reply: { type: 'choice', number: 1 } });
    await waitFor(
      'the mirror says what the node says',
      () => hubPrompt(prompt.id)?.decidedAt === decided.decidedAt,
    );
    const second = answerPrompt(hubMachine.store, {
      promptRef: prompt.id,
      raw: '3',
      decidedBy: 'telegram:2',
    });
    expect(second).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/already reply received by telegram:1/),
    });
    expect(alphaMachine.store.prompts.get(prompt.id)!.reply).toEqual({ type: 'choice', number: 1 });
  });

  it("the node's own answer wins a race: the hub's answer is refused there and the chats are told", async () => {
    const id = nodeSession(alphaMachine);
    const prompt = openPrompt(alphaMachine.store, id, permissionPrompt());
    await waitFor('the mirrored prompt', () => hubPrompt(prompt.id));
    await alpha!.stop(); // the node's terminal answers while the hub's answer is on its way
    alpha = null;
    expect(answerPrompt(alphaMachine.store, { promptRef: prompt.id, raw: '3', decidedBy: 'cli:me' }).ok).toBe(
      true,
    );
    expect(
      answerPrompt(hubMachine.store, { promptRef: prompt.id, raw: '1', decidedBy: 'telegram:1' }).ok,
    ).toBe(true);
    alpha = await startNode(nats, 'alpha', alphaMachine);
    const notice = await waitFor('the refusal said in the chats', () =>
      hubMachine.store.channels
        .messagesAfter(0)
        .find((m) => m.kind === 'notice' && /not applied on alpha/.test(m.text)),
    );
    expect(notice.text).toMatch(
      /telegram:1's answer was not applied on alpha: already reply received by cli:me/,
    );
    expect(alphaMachine.store.prompts.get(prompt.id)!.reply).toEqual({ type: 'choice', number: 3 });
    await waitFor('the mirror shows the truth', () => hubPrompt(prompt.id)?.decidedBy === 'cli:me');
  });

  it('a prompt raised while the hub is down reaches it when it returns', async () => {
    const id = nodeSession(alphaMachine);
    await waitFor('the mirrored session', () => mirrored(id));
    await hub!.stop();
    hub = null;
    const prompt = openPrompt(alphaMachine.store, id, permissionPrompt());
    await alpha!.stop(); // every event published: the node is quiet
    alpha = await startNode(nats, 'alpha', alphaMachine);
    expect(hubPrompt(prompt.id)).toBeNull();
    hub = await startHub(nats, hubMachine);
    await waitFor('the prompt mirrored after the hub came back', () => hubPrompt(prompt.id));
  });

  it("a node's first join carries what its sessions said since serve started, and nothing from before", async () => {
    // A `startup` session speaks while serve still joins (a slow bus, the agents' discovery): serve marks the
    // store's last message before it starts any session, and the first join goes on from there.
    const beta = machine('beta');
    try {
      const earlier = nodeSession(beta, 'earlier');
      beta.store.channels.addMessage(earlier, 'message', 'said before serve started');
      const mark = beta.store.channels.lastMessageId();
      const id = nodeSession(beta, 'deploy');
      beta.store.channels.addMessage(id, 'message', 'Preparing release 42');
      const node = await startNode(nats, 'beta', beta, nats.url, {}, [], systemClock, mark);
      try {
        const texts = () => hubMachine.store.channels.messagesAfter(0).map((m) => m.text);
        await waitFor('the message mirrored', () => texts().includes('Preparing release 42'));
        expect(texts()).not.toContain('said before serve started');
      } finally {
        await node.stop();
      }
    } finally {
      beta.close();
    }
  });

  it('an answer sent while the node is down is applied when it returns, if the prompt still waits', async () => {
    const id = nodeSession(alphaMachine);
    const waiting = openPrompt(alphaMachine.store, id, permissionPrompt());
    const expiring = openPrompt(alphaMachine.store, id, permissionPrompt({ key: 'second' }), 1_500);
    await waitFor('both mirrored', () => hubPrompt(waiting.id) && hubPrompt(expiring.id));
    await alpha!.stop();
    alpha = null;
    expect(
      answerPrompt(hubMachine.store, { promptRef: waiting.id, raw: '1', decidedBy: 'telegram:1' }).ok,
    ).toBe(true);
    expect(
      answerPrompt(hubMachine.store, { promptRef: expiring.id, raw: '1', decidedBy: 'telegram:1' }).ok,
    ).toBe(true);
    await waitFor('the expiring one expired on the node', () => Date.now() > expiring.expiresAt);
    alpha = await startNode(nats, 'alpha', alphaMachine);
    await waitFor(
      'the waiting one applied',
      () => alphaMachine.store.prompts.get(waiting.id)?.status === 'reply_received',
    );
    const refused = await waitFor('the expired one refused, and said', () =>
      hubMachine.store.channels
        .messagesAfter(0)
        .find((m) => /not applied on alpha: the prompt expired/.test(m.text)),
    );
    expect(refused.sessionId).toBe(id);
    expect(alphaMachine.store.prompts.get(expiring.id)!.nonceUsed).toBe(false);
  });

  it('text typed on the hub for a node session reaches the node, once', async () => {
    const id = nodeSession(alphaMachine);
    await waitFor('the mirrored session', () => mirrored(id));
    expect(sendTextToSession(hubMachine.store, id, 'run the tests', 'telegram:1')).toEqual({
      type: 'queued',
    });
    const inputs = await waitFor('the text on the node', () => {
      const taken = alphaMachine.store.channels.takeInputs(id);
      return taken.length > 0 ? taken : null;
    });
    expect(inputs.map((i) => [i.text, i.sentBy])).toEqual([['run the tests', 'telegram:1']]);
    await hub!.stop();
    hub = await startHub(nats, hubMachine);
    await alpha!.stop();
    alpha = await startNode(nats, 'alpha', alphaMachine);
    expect(alphaMachine.store.channels.takeInputs(id)).toEqual([]);
  });

  it('says which nodes it knows and whether they are connected', async () => {
    await waitFor('alpha known', async () => (await hub!.nodes()).length === 1);
    expect(await hub!.nodes()).toEqual([
      expect.objectContaining({ name: 'alpha', hostname: 'alpha-host', online: true, running: 0 }),
    ]);
    await alpha!.stop();
    alpha = null;
    expect((await hub!.nodes())[0]!.online).toBe(false);
  });
});

describe.skipIf(!NATS_SERVER)(`the hub's web UI reaches sessions on a node${NO_NATS}`, () => {
  it('starts a session on a named node, lists it with its machine, and stops it there', async () => {
    const stopped: string[] = [];
    await alpha!.stop();
    alpha = await startNode(nats, 'alpha', alphaMachine, nats.url, {
      // As the node's session starter would: the session's row in the node's own store.
      launch: async (request) => {
        const id = nodeSession(alphaMachine, path.basename(request.cwd));
        return { text: `${request.agent} started in ${request.cwd}`, sessionId: id };
      },
      stop: async (sessionId) => {
        stopped.push(sessionId);
        alphaMachine.store.sessions.end(sessionId, 'terminated', null);
        return true;
      },
    });
    const backend = new SessionsWebBackend({
      store: hubMachine.store,
      watchStore: hubMachine.clusterStore,
      clock: systemClock,
      live: new LiveSessions(),
      version: 'test',
      cwd: '/',
      remote: hubRemoteSessions(() => hub),
    });
    try {
      await waitFor('alpha offered', async () => (await backend.nodes()).some((n) => n.name === 'alpha'));
      expect(await backend.nodes()).toEqual([
        { name: 'alpha', online: true, agents: [], lastSeen: expect.any(Number) },
      ]);
      const session = await backend.start(
        { agent: 'claude', cwd: '/src/billing', node: 'alpha' },
        'web:127.0.0.1',
      );
      expect(session).toMatchObject({ host: 'alpha', label: 'billing', canStop: true, live: false });
      expect(alphaMachine.store.sessions.get(session.id)?.status).toBe('active');
      expect(await backend.stop(session.id)).toBe(true);
      await waitFor('stopped on alpha', () => stopped.includes(session.id));
      await waitFor(
        'ended on the hub too',
        () => hubMachine.store.sessions.get(session.id)?.status === 'terminated',
      );
      await expect(backend.start({ agent: 'claude', cwd: '/x', node: 'gamma' }, 'web')).rejects.toThrow(
        /no machine gamma/,
      );
    } finally {
      backend.close();
    }
  }, 60_000);
});

describe.skipIf(!NATS_SERVER)(`two hubs${NO_NATS}`, () => {
  it('both mirror the node; the same prompt answered on both is applied once, the other hub is told', async () => {
    const twoHubs = await startNats({ hubs: ['hub', 'discord'], nodes: ['alpha'] });
    const first = machine('hub-one');
    const second = machine('hub-two');
    const node = machine('alpha-two');
    const hubs = [await startHub(twoHubs, first), await startHub(twoHubs, second, twoHubs.url, 'discord')];
    const alphaNode = await startNode(twoHubs, 'alpha', node);
    try {
      const id = nodeSession(node);
      const prompt = openPrompt(node.store, id, permissionPrompt());
      await waitFor(
        'mirrored on both',
        () => first.store.prompts.get(prompt.id) && second.store.prompts.get(prompt.id),
      );
      expect(answerPrompt(first.store, { promptRef: prompt.id, raw: '1', decidedBy: 'telegram:1' }).ok).toBe(
        true,
      );
      expect(answerPrompt(second.store, { promptRef: prompt.id, raw: '3', decidedBy: 'discord:2' }).ok).toBe(
        true,
      );
      await waitFor(
        'decided on the node',
        () => node.store.prompts.get(prompt.id)?.status === 'reply_received',
      );
      const winner = node.store.prompts.get(prompt.id)!.decidedBy;
      const loser = winner === 'telegram:1' ? second : first;
      await waitFor('the other hub told', () =>
        loser.store.channels
          .messagesAfter(0)
          .some((m) => /was not applied on alpha: already reply received/.test(m.text)),
      );
      for (const hub of [first, second])
        await waitFor(
          'each mirror says who won',
          () => hub.store.prompts.get(prompt.id)?.decidedBy === winner,
        );
    } finally {
      await alphaNode.stop();
      for (const hub of hubs) await hub.stop();
      for (const m of [first, second, node]) m.close();
      await twoHubs.close();
    }
  });
});

describe.skipIf(!NATS_SERVER)(`the hub's control panel${NO_NATS}`, () => {
  it("shows each node's repositories as <repo>@<node>, running or not, and starts and stops them there", async () => {
    const started: string[] = [];
    const stopped: string[] = [];
    await alpha!.stop();
    alpha = await startNode(
      nats,
      'alpha',
      alphaMachine,
      nats.url,
      {
        startRepo: async (name) => {
          started.push(name);
          return true;
        },
        stop: async (sessionId) => {
          stopped.push(sessionId);
          return true;
        },
      },
      [
        { name: 'api', agent: 'claude', dir: '/src/api' },
        { name: 'web', agent: 'codex', dir: '/src/web' },
      ],
    );
    await waitFor('both repositories listed', () => hub!.panelProjects().length === 2);
    const id = nodeSession(alphaMachine, 'api');
    openPrompt(alphaMachine.store, id, permissionPrompt());
    await waitFor('api running with a prompt', () => hub!.panelProjects()[0]?.waiting === 1);
    expect(hub!.panelProjects()).toEqual([
      { name: 'api@alpha', agent: 'claude', state: 'running', waiting: 1, worktrees: [] },
      { name: 'web@alpha', agent: 'codex', state: 'stopped', waiting: 0, worktrees: [] },
    ]);
    expect(hub!.panelAction('start', 'web@alpha', 'discord:1')).toBe('Asked alpha to start web…');
    expect(hub!.panelAction('stop', 'api@alpha', 'discord:1')).toBe('Asked alpha to stop api…');
    expect(hub!.panelAction('stop', 'web@gamma', 'discord:1')).toBeNull();
    await waitFor('asked on alpha', () => started.includes('web') && stopped.includes(id));
  });
});
