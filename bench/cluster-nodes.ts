/**
 * Simulated machines for the cluster-inbox benchmark: each node is agent-bridge's own ClusterNode (from dist/)
 * with a store of its own in a temp folder, its sessions scripted as rows a session would write (a prompt
 * created, routed, awaiting a reply), all in this process.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type * as NodeModule from '../src/cluster/cluster-node.js';
import type * as ClockModule from '../src/core/clock.js';
import type * as ProcessTree from '../src/drivers/terminal/process-tree.js';
import type * as StoreModule from '../src/store/store.js';
import type { Store } from '../src/store/store.js';
import { importDist } from './support.js';

export interface SimNode {
  name: string;
  sessions: string[];
  store: Store;
  /** Raises a permission prompt in one of its sessions, as its agent would; returns the prompt's id. */
  raise(sessionId: string): string;
  /** Told when the node applied an answer (its guarded transition took it). */
  onAnswered(listener: (sessionId: string) => void): void;
  stop(): Promise<void>;
}

export async function startSimNodes(options: {
  root: string;
  count: number;
  sessionsPerNode: number;
  url: string;
  keyFile: (name: string) => string;
}): Promise<SimNode[]> {
  const { ClusterNode } = await importDist<typeof NodeModule>(options.root, 'cluster/cluster-node.js');
  const { openStore } = await importDist<typeof StoreModule>(options.root, 'store/store.js');
  const { systemClock } = await importDist<typeof ClockModule>(options.root, 'core/clock.js');
  const { ownProcessRef } = await importDist<typeof ProcessTree>(
    options.root,
    'drivers/terminal/process-tree.js',
  );
  const nodes: SimNode[] = [];
  for (let n = 0; n < options.count; n++) {
    const name = `node${String(n).padStart(2, '0')}`;
    const dir = mkdtempSync(path.join(tmpdir(), `ab-bench-${name}-`));
    const store = openStore({ dir, clock: systemClock });
    const clusterStore = openStore({ dir, clock: systemClock });
    const sessions: string[] = [];
    for (let s = 0; s < options.sessionsPerNode; s++) {
      const id = randomUUID();
      store.sessions.create({
        id,
        agent: 'shell',
        cwd: `/src/repo${s}`,
        pid: null,
        recording: null,
        approveFrom: ['hub'],
        label: `repo${s}`,
        owner: ownProcessRef(),
      });
      sessions.push(id);
    }
    const listeners: Array<(sessionId: string) => void> = [];
    const node = await ClusterNode.start({
      settings: { role: 'node', name, servers: [options.url], credentials: options.keyFile(name) },
      version: 'bench',
      store: clusterStore,
      actions: {
        send: async () => ({ type: 'queued' }),
        startRepo: async () => false,
        launch: async () => {
          throw new Error('no agents here');
        },
        stop: async () => false,
        cancel: () => false,
        answered: (sessionId) => listeners.forEach((l) => l(sessionId)),
      },
      hello: async () => ({ hostname: name, version: 'bench', repos: [], agents: [] }),
      clock: systemClock,
      log: () => undefined,
    });
    nodes.push({
      name,
      sessions,
      store,
      raise: (sessionId) => {
        const record = store.prompts.create(sessionId, PERMISSION, 600_000, 'bench');
        store.prompts.transition(record.id, 'routed');
        store.prompts.transition(record.id, 'awaiting_reply');
        return record.id;
      },
      onAnswered: (listener) => listeners.push(listener),
      stop: async () => {
        await node.stop();
        clusterStore.close();
        store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    });
  }
  return nodes;
}

const PERMISSION = {
  kind: 'permission' as const,
  confidence: 'exact' as const,
  excerpt: 'Bash: npm test',
  detail: 'Bash command\n\nnpm test\n\nDo you want to proceed?',
  choices: [
    { number: 1, label: 'Yes' },
    { number: 2, label: "Yes, and don't ask again for npm test" },
    { number: 3, label: 'No' },
  ],
  safeDefault: { type: 'choice' as const, number: 3 },
  allowForSessionChoice: 2,
  key: 'permission|npm test',
};
