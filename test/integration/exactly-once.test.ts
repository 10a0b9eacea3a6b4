import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { PromptCoordinator } from '../../src/sessions/prompt-coordinator.js';
import { permissionPrompt, tempStore, type TempStore } from '../support/temp-store.js';

let store: TempStore;
afterEach(() => store?.remove());

const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'exactly-once.worker.ts');

function runWorker(data: Record<string, unknown>): Promise<number> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(
      `import { register } from 'tsx/esm/api'; register(); await import(${JSON.stringify(WORKER)});`,
      {
        eval: true,
        workerData: data,
      },
    );
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

describe('exactly once', () => {
  it('1,000 concurrent duplicate answers from 8 connections: one wins, one injection', async () => {
    store = tempStore();
    store.clock.advance(-store.clock.now() + Date.now()); // workers use the real clock
    store.sessions.create({ id: 'sess', agent: 'claude', cwd: '/tmp', pid: 1, recording: null });
    const injected: string[] = [];
    const coordinator = new PromptCoordinator({
      sessionId: 'sess',
      prompts: store.prompts,
      audit: store.audit,
      clock: store.clock,
      ttlMs: () => 600_000,
    });
    coordinator.raiseFromScreen(permissionPrompt(), async (action) => {
      injected.push(JSON.stringify(action));
      return 'keys';
    });
    const record = coordinator.current!;
    const workers = Array.from({ length: 8 }, (_, i) =>
      runWorker({
        dir: store.dir,
        promptId: record.id,
        sessionId: 'sess',
        nonce: record.nonce,
        attempts: 125,
        name: `w${i}`,
      }),
    );
    const wins = await Promise.all(workers);
    expect(wins.reduce((a, b) => a + b, 0)).toBe(1);
    coordinator.poke();
    coordinator.poke();
    await new Promise((r) => setTimeout(r, 50));
    store.clock.advance(200);
    await new Promise((r) => setTimeout(r, 20));
    expect(injected).toHaveLength(1);
    expect(store.prompts.get(record.id)?.status).toBe('resolved');
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM replies').get()).toEqual({ n: 1 });
    coordinator.stop('test over');
  });
});
