import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReplyAction } from '../../src/core/prompt.js';
import { PromptCoordinator, type CoordinatorOptions } from '../../src/sessions/prompt-coordinator.js';
import { answerPrompt } from '../../src/sessions/answer-prompt.js';
import type { PromptRecord } from '../../src/store/prompt-store.js';
import { permissionPrompt, tempStore, yesNoPrompt, type TempStore } from '../support/temp-store.js';
import { waitFor } from '../support/wait.js';

let store: TempStore;
afterEach(() => store?.remove());

function setup(ttlMs = 60_000, more: Partial<CoordinatorOptions> = {}) {
  store = tempStore();
  store.sessions.create({ id: 'sess', agent: 'claude', cwd: '/tmp', pid: 1, recording: null });
  const delivered: ReplyAction[] = [];
  const opened: string[] = [];
  const closed: PromptRecord[] = [];
  const coordinator = new PromptCoordinator({
    sessionId: 'sess',
    prompts: store.prompts,
    audit: store.audit,
    clock: store.clock,
    ttlMs: () => ttlMs,
    observers: [{ opened: (r) => opened.push(r.id), closed: (r) => closed.push(r) }],
    ...more,
  });
  const deliver = async (action: ReplyAction) => {
    delivered.push(action);
    return 'keys';
  };
  return { coordinator, delivered, opened, closed, deliver };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 5));
const events = () =>
  store.db
    .prepare('SELECT event FROM audit_events ORDER BY seq')
    .all()
    .map((r) => (r as { event: string }).event);

/** A taken-over prompt's answer: recorded as typed (in real time: typing is), then resolved after the echo's time. */
async function untilResolved(id: string) {
  const status = () => store.prompts.get(id)?.status;
  await waitFor('the answer recorded as typed', () => status() === 'injected');
  store.clock.advance(200);
  await waitFor('the prompt resolved', () => status() === 'resolved');
}

async function settle() {
  await flush();
  store.clock.advance(200);
  await flush();
}

describe('prompt coordinator', () => {
  it('opens a screen prompt, injects an answer from another process once, then resolves it', async () => {
    const { coordinator, delivered, closed, deliver } = setup();
    coordinator.raiseFromScreen(permissionPrompt(), deliver);
    const record = coordinator.current!;
    expect(record.status).toBe('awaiting_reply');
    expect(
      answerPrompt(store, { promptRef: record.id.slice(0, 8), raw: 'no', decidedBy: 'cli:test' }),
    ).toMatchObject({ ok: true, summary: '3. No' });
    coordinator.poke();
    await settle();
    expect(delivered).toEqual([{ type: 'choice', number: 3 }]);
    expect(store.prompts.get(record.id)).toMatchObject({ status: 'resolved', decidedBy: 'cli:test' });
    expect(closed.map((r) => r.status)).toEqual(['resolved']);
    expect(events()).toEqual(['PROMPT_DETECTED', 'PROMPT_ROUTED', 'REPLY_RECEIVED', 'REPLY_INJECTED']);
    coordinator.stop('done');
  });

  it('lets one prompt wait at a time; the next is raised when the first is done', async () => {
    const { coordinator, opened, deliver } = setup();
    coordinator.raiseFromScreen(yesNoPrompt({ key: 'a' }), deliver);
    coordinator.raiseFromScreen(yesNoPrompt({ key: 'b', excerpt: 'Second? (y/n)' }), deliver);
    expect(opened).toHaveLength(1);
    expect(store.prompts.open()).toHaveLength(1);
    coordinator.screenPromptGone('a');
    expect(opened).toHaveLength(2);
    expect(coordinator.current?.excerpt).toBe('Second? (y/n)');
    coordinator.stop('done');
  });

  it('closes a prompt answered at the terminal without typing anything', () => {
    const { coordinator, delivered, deliver } = setup();
    coordinator.raiseFromScreen(yesNoPrompt(), deliver);
    const record = coordinator.current!;
    coordinator.screenPromptGone('yes_no|Continue?');
    expect(store.prompts.get(record.id)).toMatchObject({ status: 'resolved', decidedBy: 'terminal:local' });
    expect(delivered).toEqual([]);
    expect(answerPrompt(store, { promptRef: record.id, raw: 'y', decidedBy: 'cli:late' })).toMatchObject({
      ok: false,
      code: 'refused',
    });
    expect(events()).toContain('PROMPT_RESOLVED_LOCALLY');
  });

  it('applies the safe default when the TTL runs out', async () => {
    const { coordinator, delivered, deliver } = setup(1000);
    coordinator.raiseFromScreen(permissionPrompt(), deliver);
    const record = coordinator.current!;
    store.clock.advance(1000);
    await settle();
    expect(delivered).toEqual([{ type: 'choice', number: 3 }]);
    expect(store.prompts.get(record.id)).toMatchObject({ status: 'resolved', decidedBy: 'auto:timeout' });
    expect(store.db.prepare('SELECT source FROM replies').get()).toEqual({ source: 'timeout_default' });
  });

  it('types nothing on expiry when there is no safe default (low confidence, questions)', async () => {
    const { coordinator, delivered, deliver } = setup(1000);
    coordinator.raiseFromScreen(
      { ...yesNoPrompt(), kind: 'unknown', confidence: 'low', safeDefault: null },
      deliver,
    );
    const record = coordinator.current!;
    store.clock.advance(1000);
    await settle();
    expect(delivered).toEqual([]);
    expect(store.prompts.get(record.id)?.status).toBe('expired');
  });

  it('treats Claude drawing its dialog under a waiting hook as the same prompt', async () => {
    const { coordinator, opened, delivered, deliver } = setup();
    const abort = new AbortController();
    const settled = coordinator.raiseFromHook(
      { ...permissionPrompt(), confidence: 'exact', key: 'hook|1' },
      deliver,
      abort.signal,
    );
    coordinator.raiseFromScreen(permissionPrompt({ key: 'screen|1' }), deliver);
    expect(opened).toHaveLength(1);
    expect(coordinator.current?.confidence).toBe('exact');
    coordinator.screenPromptGone('screen|1');
    await settled;
    expect(store.prompts.open()).toHaveLength(0);
    expect(delivered).toEqual([]);
  });

  it('answers a hook prompt through the hook, and ends it when Claude gives up on the hook', async () => {
    const { coordinator, delivered, deliver } = setup();
    const abort = new AbortController();
    const settled = coordinator.raiseFromHook(
      { ...permissionPrompt(), confidence: 'exact', key: 'hook|2' },
      deliver,
      abort.signal,
    );
    const record = coordinator.current!;
    abort.abort();
    await settled;
    expect(store.prompts.get(record.id)?.status).toBe('resolved');
    expect(delivered).toEqual([]);
  });

  it('marks open prompts failed when the session ends, and refuses late answers', () => {
    const { coordinator, deliver } = setup();
    coordinator.raiseFromScreen(yesNoPrompt(), deliver);
    const record = coordinator.current!;
    coordinator.stop('the session ended');
    expect(store.prompts.get(record.id)).toMatchObject({ status: 'failed', note: 'the session ended' });
  });

  it('routes a prompt its previous controller stored and died before routing, when it takes it over', async () => {
    const { coordinator, delivered, deliver } = setup();
    // Killed between storing the prompt and routing it: the row says `created`.
    const stored = store.prompts.create('sess', yesNoPrompt(), 60_000, 'screen');
    await coordinator.adopt([stored], () => deliver);
    expect(store.prompts.get(stored.id)).toMatchObject({ status: 'awaiting_reply' });
    expect(events()).toEqual(['PROMPT_ROUTED']);
    // Answerable as any other: the answer is typed once.
    expect(answerPrompt(store, { promptRef: stored.id, raw: 'y', decidedBy: 'cli:test' })).toMatchObject({
      ok: true,
    });
    coordinator.poke();
    await untilResolved(stored.id);
    expect(delivered).toHaveLength(1);
    coordinator.stop('done');
  });

  /** Lines of the audit log (the file: the record) saying `event` of prompt `id`. */
  const linesOf = (event: string, id: string) =>
    readFileSync(store.audit.file, 'utf8')
      .split('\n')
      .filter((line) => line.includes(`"${event}"`) && line.includes(id)).length;

  /** Killed between writing its line to the log and committing: the line stays, the change does not. */
  function killedAfterLine(event: 'REPLY_INJECTED' | 'PROMPT_EXPIRED' | 'PROMPT_FAILED', id: string) {
    const killed = store.db.transaction(() => {
      store.audit.record(event, { session_id: 'sess', prompt_id: id });
      throw new Error('killed');
    });
    expect(() => killed()).toThrow('killed');
  }

  describe('an answer taken over from a controller killed while it recorded the answer as typed', () => {
    const injectedLines = (id: string) => linesOf('REPLY_INJECTED', id);

    /** A prompt answered while its previous controller ran: `lineWritten`, it typed it and wrote the line. */
    async function takeOverAnswered(lineWritten: boolean) {
      const { coordinator, delivered, deliver } = setup();
      const stored = store.prompts.create('sess', yesNoPrompt(), 60_000, 'screen');
      store.prompts.transition(stored.id, 'routed');
      store.prompts.transition(stored.id, 'awaiting_reply');
      expect(answerPrompt(store, { promptRef: stored.id, raw: 'y', decidedBy: 'cli:test' })).toMatchObject({
        ok: true,
      });
      if (lineWritten) killedAfterLine('REPLY_INJECTED', stored.id);
      expect(store.prompts.get(stored.id)).toMatchObject({ status: 'reply_received' });
      await coordinator.adopt([store.prompts.get(stored.id)!], () => deliver);
      coordinator.poke();
      await untilResolved(stored.id);
      coordinator.stop('done');
      return { id: stored.id, delivered };
    }

    it('keeps the line it wrote and writes none again', async () => {
      const { id, delivered } = await takeOverAnswered(true);
      // Delivered again: the session host knows it was typed (`once`) and types nothing.
      expect(delivered).toHaveLength(1);
      expect(injectedLines(id)).toBe(1);
    });

    it('writes the line when the controller died before writing it', async () => {
      const { id } = await takeOverAnswered(false);
      expect(injectedLines(id)).toBe(1);
    });
  });

  describe("a prompt's end taken over from a controller killed between its line and its commit", () => {
    async function takeOverOpen(ttlMs: number) {
      const { coordinator, deliver } = setup(ttlMs);
      const stored = store.prompts.create('sess', yesNoPrompt(), ttlMs, 'screen');
      store.prompts.transition(stored.id, 'routed');
      store.prompts.transition(stored.id, 'awaiting_reply');
      return { coordinator, deliver, id: stored.id };
    }

    it('expires it with one PROMPT_EXPIRED line, the one written before', async () => {
      const { coordinator, deliver, id } = await takeOverOpen(1_000);
      store.clock.advance(1_000);
      killedAfterLine('PROMPT_EXPIRED', id);
      expect(store.prompts.get(id)).toMatchObject({ status: 'awaiting_reply' });
      await coordinator.adopt([store.prompts.get(id)!], () => deliver);
      store.clock.advance(0);
      await waitFor('the prompt expired', () => store.prompts.get(id)?.status !== 'awaiting_reply');
      expect(linesOf('PROMPT_EXPIRED', id)).toBe(1);
      coordinator.stop('done');
    });

    it('fails it at the end with one PROMPT_FAILED line, the one written before', async () => {
      const { coordinator, deliver, id } = await takeOverOpen(60_000);
      killedAfterLine('PROMPT_FAILED', id);
      await coordinator.adopt([store.prompts.get(id)!], () => deliver);
      coordinator.stop('the session ended');
      expect(store.prompts.get(id)).toMatchObject({ status: 'failed' });
      expect(linesOf('PROMPT_FAILED', id)).toBe(1);
    });

    it('writes the line of a change its previous controller never started', async () => {
      const { coordinator, deliver, id } = await takeOverOpen(60_000);
      await coordinator.adopt([store.prompts.get(id)!], () => deliver);
      coordinator.stop('the session ended');
      expect(linesOf('PROMPT_FAILED', id)).toBe(1);
      expect(events().at(-1)).toBe('PROMPT_FAILED');
    });
  });

  it('stores a prompt and routes it in one write: when routing fails, nothing of it is left half-stored', () => {
    const failures: string[] = [];
    const { coordinator, opened, deliver } = setup(60_000, {
      onStorageError: (what) => failures.push(what),
    });
    // The route's write fails (as a disk filling up between the two would): the insert before it goes too.
    store.db.exec(`CREATE TRIGGER refuse_route BEFORE UPDATE OF status ON prompts WHEN NEW.status = 'routed'
      BEGIN SELECT RAISE(ABORT, 'no room'); END`);
    coordinator.raiseFromScreen(yesNoPrompt(), deliver);
    expect(failures).toEqual(['storing a prompt (answer it in the terminal)']);
    expect(store.db.prepare('SELECT status FROM prompts').all()).toEqual([]);
    expect(coordinator.current).toBeNull();
    store.db.exec('DROP TRIGGER refuse_route');
    coordinator.raiseFromScreen(yesNoPrompt(), deliver);
    expect(store.prompts.get(opened[0]!)).toMatchObject({ status: 'awaiting_reply' });
    coordinator.stop('done');
  });
});

describe('hook grace', () => {
  it('holds a permission dialog seen on screen until its hook twin reports it exactly', async () => {
    store = tempStore();
    store.sessions.create({ id: 'sess', agent: 'claude', cwd: '/tmp', pid: 1, recording: null });
    const coordinator = new PromptCoordinator({
      sessionId: 'sess',
      prompts: store.prompts,
      audit: store.audit,
      clock: store.clock,
      ttlMs: () => 60_000,
      hookGraceMs: 1500,
    });
    const deliver = async () => 'k';
    coordinator.raiseFromScreen(permissionPrompt({ key: 'screen' }), deliver);
    expect(store.prompts.open()).toHaveLength(0);
    store.clock.advance(500);
    void coordinator.raiseFromHook(
      { ...permissionPrompt(), confidence: 'exact', key: 'hook' },
      deliver,
      new AbortController().signal,
    );
    store.clock.advance(2000);
    expect(store.prompts.open().map((p) => p.confidence)).toEqual(['exact']);
    coordinator.screenPromptGone('screen');
    expect(store.prompts.open()).toHaveLength(0);
  });

  it('raises the screen dialog on its own when no hook comes', () => {
    store = tempStore();
    store.sessions.create({ id: 'sess', agent: 'claude', cwd: '/tmp', pid: 1, recording: null });
    const coordinator = new PromptCoordinator({
      sessionId: 'sess',
      prompts: store.prompts,
      audit: store.audit,
      clock: store.clock,
      ttlMs: () => 60_000,
      hookGraceMs: 1500,
    });
    coordinator.raiseFromScreen(permissionPrompt(), async () => 'k');
    store.clock.advance(1500);
    expect(store.prompts.open().map((p) => p.confidence)).toEqual(['high']);
    coordinator.stop('done');
  });
});
