import { afterEach, describe, expect, it } from 'vitest';
import { answerPrompt } from '../../src/sessions/answer-prompt.js';
import { openStore, type Store } from '../../src/store/store.js';
import { openPrompt, tempStore, yesNoPrompt, type TempStore } from '../support/temp-store.js';

// Issue 12, item 13: REPLY_RECEIVED was sometimes logged after REPLY_INJECTED, because the decision was
// committed before its audit line was written and the session, in another process, typed it in between.

let store: TempStore;
let session: Store;
afterEach(() => {
  session?.close();
  store?.remove();
});

describe('the audit trail of an answer', () => {
  it('always has REPLY_RECEIVED before REPLY_INJECTED, however fast the session applies the decision', () => {
    store = tempStore();
    // The session's own connection, as in another process: it applies whatever decision it can see.
    session = openStore({ dir: store.dir, clock: store.clock });
    session.db.pragma('busy_timeout = 0');
    store.sessions.create({ id: 'sess-1', agent: 'shell', cwd: '/tmp', pid: 1, recording: null });
    const record = openPrompt(store, 'sess-1', yesNoPrompt());
    const applyVisibleDecisions = () => {
      for (const decided of session.prompts.decidedNotInjected('sess-1')) {
        if (session.prompts.markInjected(decided, 'y\r', 'operator'))
          session.audit.record('REPLY_INJECTED', { session_id: 'sess-1', prompt_id: decided.id });
      }
    };
    // The session looks at the store at the worst moment: while the answer's audit line is being written.
    const record_ = store.audit.record.bind(store.audit);
    store.audit.record = (event, fields) => {
      if (event === 'REPLY_RECEIVED') {
        try {
          applyVisibleDecisions();
        } catch {
          // The answer's transaction holds the write lock: the session cannot act yet, which is the point.
        }
      }
      return record_(event, fields);
    };
    expect(answerPrompt(store, { promptRef: record.id, raw: 'y', decidedBy: 'cli:me' }).ok).toBe(true);
    applyVisibleDecisions(); // the session's next look
    const events = (
      store.db.prepare('SELECT event FROM audit_events ORDER BY seq').all() as Array<{ event: string }>
    )
      .map((row) => row.event)
      .filter((event) => event.startsWith('REPLY_'));
    expect(events).toEqual(['REPLY_RECEIVED', 'REPLY_INJECTED']);
  });
});
