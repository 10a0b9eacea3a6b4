// Every statement the store runs on a hot path finds its rows through an index: its cost is the same with a
// long history (100k prompts, inputs, messages) as with none (issue 14).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permissionPrompt, tempStore, type TempStore } from '../support/temp-store.js';

let store: TempStore;
const statements = new Set<string>();

/** Tables that grow with history; a full scan of one of these is the cost this test forbids. */
const GROWING = [
  'prompts',
  'sessions',
  'session_inputs',
  'session_messages',
  'prompt_messages',
  'audit_events',
];

beforeAll(() => {
  store = tempStore();
  const prepare = store.db.prepare;
  store.db.prepare = ((sql: string) => {
    statements.add(sql);
    return prepare.call(store.db, sql);
  }) as typeof store.db.prepare;
  exerciseHotPaths();
  store.db.prepare = prepare;
});
afterAll(() => store.remove());

/** What sessions, relays and the CLI do while they run: every store call a prompt's life and a chat take. */
function exerciseHotPaths(): void {
  const alive = () => true;
  const session = store.sessions.create({
    id: '11111111-2222-3333-4444-555555555555',
    agent: 'claude',
    cwd: '/tmp',
    pid: 1,
    recording: null,
    label: 'api',
  });
  store.sessions.get(session.id);
  store.sessions.list();
  store.sessions.list({ all: true });
  store.sessions.findByPrefix('1111');
  store.sessions.lastAgentSessionId('api', 'claude');
  store.sessions.setAgentSessionId(session.id, 'abc');
  store.sessions.deadOwners(alive);
  store.sessions.setName(session.id, 'the api');
  store.sessions.setFirstPrompt(session.id, 'fix the tests');
  store.sessions.setHost(
    session.id,
    { process: { pid: 1, startTime: null }, socket: '/tmp/s.sock' },
    { input: false, view: true },
  );
  store.sessions.setController(session.id, { pid: 2, startTime: null }, 'key');
  store.sessions.setLinesRead(session.id, 3);
  store.sessions.byRecordings(['/tmp/r.cast']);
  const prompt = store.prompts.create(session.id, permissionPrompt(), 60_000, 'screen');
  store.prompts.transition(prompt.id, 'routed');
  store.prompts.open();
  store.prompts.open(session.id);
  store.prompts.findByPrefix(prompt.id.slice(0, 4));
  store.prompts.decidedNotInjected(session.id);
  store.prompts.unfinished(session.id);
  store.prompts.recent(20);
  store.prompts.expire(prompt.id);
  store.channels.recordPromptMessage({
    promptId: prompt.id,
    channel: 'telegram',
    chatId: '1',
    messageId: '9',
  });
  store.channels.promptMessages(prompt.id, 'telegram');
  store.channels.promptForMessage('telegram', '1', '9');
  store.channels.unshownOutcomes('telegram');
  store.channels.markOutcomeShown(prompt.id, 'telegram', '1');
  store.channels.addInput(session.id, 'hello', 'telegram:1');
  store.channels.takeInputs(session.id);
  store.channels.addMessage(session.id, 'message', 'hi');
  store.channels.messagesAfter(0);
  store.channels.lastMessageId();
  store.channels.getState('telegram', 'message_cursor');
  store.channels.setState('telegram', 'message_cursor', '1');
  store.channels.acquireHost('telegram', alive, { pid: process.pid, startTime: null });
  store.threads.activeByLabel('api#1');
  store.audit.record('SESSION_START', { session_id: session.id });
}

/** SQLite's plan for a statement, one step a line (parameters bound to null: the plan does not depend on them). */
function plan(sql: string): string[] {
  const explained = store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`);
  const params = new Array((sql.match(/\?/g) ?? []).length).fill(null);
  return (explained.all(...params) as Array<{ detail: string }>).map((row) => row.detail);
}

describe('the store on its hot paths', () => {
  it('saw the statements it was meant to check', () => {
    expect(statements.size).toBeGreaterThan(25);
  });

  it('never scans a table that grows with history', () => {
    const scans = [...statements]
      .filter((sql) => /^\s*(SELECT|UPDATE|DELETE)/i.test(sql))
      .flatMap((sql) =>
        plan(sql)
          .filter((step) => GROWING.some((table) => new RegExp(`^SCAN ${table}\\b`).test(step)))
          // A scan in an index's order that stops after LIMIT rows, filtering none, reads only those rows.
          .filter(
            (step) =>
              !(/ USING (COVERING )?INDEX /.test(step) && /\bLIMIT\b/i.test(sql) && !/\bWHERE\b/i.test(sql)),
          )
          .map((step) => `${step}  ←  ${sql.replace(/\s+/g, ' ').trim()}`),
      );
    expect(scans).toEqual([]);
  });

  it("reads only a channel's prompt messages whose outcome it has not shown yet, not all it ever sent", () => {
    const sql = [...statements].find((s) => s.includes('outcome_shown = 0'))!;
    expect(plan(sql).join('\n')).toMatch(/USING INDEX prompt_messages_unshown/);
  });
});
