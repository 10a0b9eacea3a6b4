import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ClusterHub } from '../../src/cluster/cluster-hub.js';
import { ClusterNode } from '../../src/cluster/cluster-node.js';
import type { NodeActions } from '../../src/cluster/node-commands.js';
import { systemClock, type Clock } from '../../src/core/clock.js';
import { ownProcessRef } from '../../src/drivers/terminal/process-tree.js';
import { sendTextToSession } from '../../src/sessions/typed-text.js';
import { openStore, type Store } from '../../src/store/store.js';
import { startNats, type NatsWorld } from './nats-server.js';

/** A machine's data folder: its store as its sessions write it, and the cluster's own connection to it. */
export interface Machine {
  dir: string;
  store: Store;
  clusterStore: Store;
  log: string[];
  close(): void;
}

export function machine(name: string): Machine {
  const dir = mkdtempSync(path.join(tmpdir(), `ab-${name}-`));
  const store = openStore({ dir, clock: systemClock });
  const clusterStore = openStore({ dir, clock: systemClock });
  return {
    dir,
    store,
    clusterStore,
    log: [],
    close: () => {
      clusterStore.close();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function startHub(
  nats: NatsWorld,
  hub: Machine,
  url = nats.url,
  name = 'hub',
  clock: Clock = systemClock,
): Promise<ClusterHub> {
  return ClusterHub.start({
    settings: { role: 'hub', name, servers: [url], credentials: nats.keyFile(name) },
    version: 'test',
    store: hub.clusterStore,
    channels: () => ['telegram'],
    clock,
    log: (line) => hub.log.push(line),
  });
}

/** A node whose actions are the store's own (sessions in these tests are rows a test writes, as a session would). */
export function startNode(
  nats: NatsWorld,
  name: string,
  node: Machine,
  url = nats.url,
  actions: Partial<NodeActions> = {},
  repos: Array<{ name: string; agent: string; dir: string }> = [],
  clock: Clock = systemClock,
  firstJoinAfterMessage?: number,
): Promise<ClusterNode> {
  const store = node.clusterStore;
  return ClusterNode.start({
    settings: { role: 'node', name, servers: [url], credentials: nats.keyFile(name) },
    version: 'test',
    store,
    actions: {
      send: async (sessionId, text, sentBy) => sendTextToSession(store, sessionId, text, sentBy),
      startRepo: async () => false,
      launch: async () => {
        throw new Error('no agents here');
      },
      stop: async () => false,
      cancel: () => false,
      answered: () => undefined,
      ...actions,
    },
    hello: async () => ({ hostname: `${name}-host`, version: 'test', repos, agents: [] }),
    clock,
    log: (line) => node.log.push(line),
    firstJoinAfterMessage,
  });
}

/** A running session in a node's store, owned by this process (alive), heard by the hubs. */
export function nodeSession(node: Machine, label = 'api'): string {
  const id = randomUUID();
  node.store.sessions.create({
    id,
    agent: 'shell',
    cwd: `/src/${label}`,
    pid: null,
    recording: null,
    approveFrom: ['hub'],
    label,
    owner: ownProcessRef(),
  });
  return id;
}

/** nats-server, a hub and node alpha, each machine with a data folder of its own: where most cluster tests start. */
export interface HubAndAlpha {
  nats: NatsWorld;
  hubMachine: Machine;
  alphaMachine: Machine;
  hub: ClusterHub;
  alpha: ClusterNode;
}

export async function startHubAndAlpha(): Promise<HubAndAlpha> {
  const nats = await startNats({ nodes: ['alpha', 'beta'] });
  const hubMachine = machine('hub');
  const alphaMachine = machine('alpha');
  const hub = await startHub(nats, hubMachine);
  const alpha = await startNode(nats, 'alpha', alphaMachine);
  return { nats, hubMachine, alphaMachine, hub, alpha };
}

/** Ends what a test left running (a test may have stopped the hub or alpha itself: null), node first. */
export async function endHubAndAlpha(
  world: Omit<HubAndAlpha, 'hub' | 'alpha'> & { hub: ClusterHub | null; alpha: ClusterNode | null },
): Promise<void> {
  await world.alpha?.stop();
  await world.hub?.stop();
  world.hubMachine.close();
  world.alphaMachine.close();
  await world.nats.close();
}
