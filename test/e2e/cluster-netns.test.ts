import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.js';
import { nodeSection } from '../support/cluster-serve.js';
import { NATS_SERVER, NO_NATS, startNats, type NatsWorld } from '../support/nats-server.js';
import { NetnsNode, NO_NETNS } from '../support/netns-node.js';
import { ServeProcess } from '../support/serve-process.js';
import { endSessionHosts } from '../support/session-hosts.js';
import { waitFor } from '../support/wait.js';

/**
 * The nodes as hosts of their own: each node's serve runs in a network namespace of its own, where nothing of
 * this machine's network is reachable but NATS, carried in through a unix socket. A hub in the test's namespace
 * (web UI on) sees both nodes' prompts and answers them; each node's agent gets its own answer.
 */

const RUNS = Boolean(NATS_SERVER) && !NO_NETNS;
const BASE_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color', LANG: 'C.UTF-8' };
/** The port NATS has inside a node's namespace: its usual one (nothing else listens there). */
const INNER_NATS_PORT = 4222;

let nats: NatsWorld;
let hubRoot: string;
let hubData: string;
let hub: ServeProcess | null = null;
const nodes: NetnsNode[] = [];

/** Asks before it ships; what it got goes to its screen and to answers.txt (what the agent really read). */
const shipScript = (name: string) =>
  `read -p "Ship ${name}? (y/n) " a; echo "got $a"; echo "$a" >> answers.txt; sleep 600`;

function node(name: string): NetnsNode {
  const machine = new NetnsNode(name, { ...BASE_ENV, HOME: '/nonexistent' });
  nodes.push(machine);
  const repo = path.join(machine.root, 'ship');
  mkdirSync(repo);
  machine.writeConfig(
    `repos:\n  - name: ship\n    dir: ${repo}\n    agent: custom\n    startup: true\n` +
      `    command: ["bash", "--norc", "--noprofile", "-c", ${JSON.stringify(shipScript(name))}]\n` +
      nodeSection(name, `nats://127.0.0.1:${INNER_NATS_PORT}`, nats.keyFile(name)),
  );
  return machine;
}

beforeEach(async () => {
  if (!RUNS) return;
  nats = await startNats({ nodes: ['alpha', 'beta'] });
  hubRoot = mkdtempSync(path.join(tmpdir(), 'ab-hub-'));
  hubData = path.join(hubRoot, 'data');
  mkdirSync(hubData, { mode: 0o700 });
});

afterEach(async () => {
  if (!RUNS) return;
  await hub?.stop();
  hub = null;
  await Promise.all(nodes.splice(0).map((n) => n.remove()));
  await endSessionHosts(hubData);
  rmSync(hubRoot, { recursive: true, force: true });
  await nats.close();
});

interface WebPrompt {
  id: string;
  sessionId: string;
  excerpt: string;
  origin: { host: string };
}

describe.skipIf(!RUNS)(
  `many machines, each node in a network namespace of its own${NO_NATS}${NO_NETNS}`,
  () => {
    it("the hub answers both nodes' prompts through NATS alone; the hub's port is out of the nodes' reach", async () => {
      hub = new ServeProcess(['--nats', nats.url, '--nats-credentials', nats.keyFile('hub')], {
        cwd: hubRoot,
        env: { ...BASE_ENV, HOME: hubRoot, AGENT_BRIDGE_HOME: hubData },
      });
      const hubUrl = new URL(await hub.url());
      const token = hubUrl.searchParams.get('token')!;
      const api = (route: string, init: RequestInit = {}) =>
        fetch(new URL(route, hubUrl.origin), {
          ...init,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        });
      const alpha = node('alpha');
      const beta = node('beta');
      await Promise.all([alpha, beta].map((n) => n.start(nats.port, INNER_NATS_PORT)));

      // Three network namespaces: the test's (with the hub and nats-server), alpha's and beta's.
      const own = readlinkSync('/proc/self/ns/net');
      expect(new Set([own, alpha.namespace(), beta.namespace()]).size).toBe(3);
      for (const machine of [alpha, beta]) {
        expect(await machine.connectFromInside(INNER_NATS_PORT)).toBe('connected');
        expect(await machine.connectFromInside(Number(hubUrl.port))).toBe('ECONNREFUSED');
        if (nats.port !== INNER_NATS_PORT)
          expect(await machine.connectFromInside(nats.port)).toBe('ECONNREFUSED');
      }

      const prompts = await waitFor(
        "both nodes' prompts on the hub",
        async () => {
          const listed = (await (await api('/api/prompts')).json()) as WebPrompt[];
          return listed.length === 2 ? listed : null;
        },
        { timeoutMs: 30_000 },
      );
      const promptOf = (name: string) => prompts.find((p) => p.origin.host === name)!;
      expect(promptOf('alpha').excerpt).toMatch(/Ship alpha\?/);
      expect(promptOf('beta').excerpt).toMatch(/Ship beta\?/);

      for (const [name, answer] of [
        ['alpha', 'yes'],
        ['beta', 'no'],
      ] as const) {
        const response = await api(`/api/prompts/${promptOf(name).id}/answer`, {
          method: 'POST',
          body: JSON.stringify({ answer }),
        });
        expect(response.status).toBe(200);
      }

      // Each node's agent read its own answer, once; its output came back to the hub through NATS.
      for (const [machine, got] of [
        [alpha, 'y'],
        [beta, 'n'],
      ] as const) {
        const { sessionId, id } = promptOf(machine.name);
        await waitFor(
          `"got ${got}" from ${machine.name} on the hub`,
          () => hubMessages(sessionId).includes(`got ${got}`),
          {
            timeoutMs: 30_000,
          },
        );
        expect(readFileSync(path.join(machine.root, 'ship', 'answers.txt'), 'utf8')).toBe(`${got}\n`);
        const injected = (await machine.audit()).filter(
          (e) => e.event === 'REPLY_INJECTED' && e.prompt_id === id,
        );
        expect(injected).toHaveLength(1);
      }
      expect(await (await api('/api/prompts')).json()).toEqual([]);
    });
  },
);

/** What the hub's store holds of a session's messages (mirrored from its node). */
function hubMessages(sessionId: string): string {
  const store = openStore({ dir: hubData });
  try {
    return store.channels
      .messagesAfter(0)
      .filter((m) => m.sessionId === sessionId)
      .map((m) => m.text)
      .join('\n');
  } finally {
    store.close();
  }
}
