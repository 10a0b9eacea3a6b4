import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DetectedPrompt } from '../../src/core/prompt.js';
import { openStore, type Store } from '../../src/store/store.js';
import { FakeClock } from './fake-clock.js';

export interface TempStore extends Store {
  clock: FakeClock;
  remove(): void;
}

/** A store in a fresh temp folder with a fake clock. */
export function tempStore(): TempStore {
  const dir = mkdtempSync(path.join(tmpdir(), 'ab-store-'));
  const clock = new FakeClock();
  const store = openStore({ dir, clock });
  return {
    ...store,
    clock,
    remove: () => {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function yesNoPrompt(overrides: Partial<DetectedPrompt> = {}): DetectedPrompt {
  return {
    kind: 'yes_no',
    confidence: 'high',
    excerpt: 'Continue? (y/n)',
    detail: 'Continue? (y/n)',
    choices: [],
    safeDefault: { type: 'no' },
    key: 'yes_no|Continue?',
    ...overrides,
  };
}

export function permissionPrompt(overrides: Partial<DetectedPrompt> = {}): DetectedPrompt {
  return {
    kind: 'permission',
    confidence: 'high',
    excerpt: 'Do you want to proceed? — touch x',
    detail: 'Bash command\n\ntouch x\n\nDo you want to proceed?',
    choices: [
      { number: 1, label: 'Yes' },
      { number: 2, label: 'Yes, and always allow' },
      { number: 3, label: 'No' },
    ],
    safeDefault: { type: 'choice', number: 3 },
    allowForSessionChoice: 2,
    key: 'permission|touch x',
    ...overrides,
  };
}

/** A prompt as a session raises it: created, routed and awaiting a reply; returns the stored record. */
export function openPrompt(store: Store, sessionId: string, prompt: DetectedPrompt, ttlMs = 60_000) {
  const record = store.prompts.create(sessionId, prompt, ttlMs, 'screen');
  store.prompts.transition(record.id, 'routed');
  store.prompts.transition(record.id, 'awaiting_reply');
  return store.prompts.get(record.id)!;
}

/** A session of `run --approve-from <channel>` in a store, as a relay serves it (label `app`, in /src/app). */
export function relaySession(store: Store, id: string, channel: string) {
  return store.sessions.create({
    id,
    agent: 'claude',
    cwd: '/src/app',
    pid: 1,
    recording: null,
    approveFrom: [channel],
    label: 'app',
  });
}
