import type { IsAlive } from '../core/process-ref.js';
import { isProcessAlive } from '../drivers/terminal/process-tree.js';
import type { SessionRecord } from '../store/session-store.js';
import type { Store } from '../store/store.js';

/** Why a session whose agent-bridge process vanished can no longer answer anything. */
export const SESSION_CRASHED = 'session crashed';

/**
 * A session whose agent-bridge process is gone (killed -9, power loss; checked by pid and start time, so a
 * reused pid or a zombie does not pass) is closed by whoever notices first: it becomes `crashed`, its open
 * prompts fail ("session crashed") and SESSION_END is audited, once, however many processes notice at once.
 * Returns true when the session is dead (whether this call or an earlier one closed it).
 */
export function reapIfDead(
  store: Pick<Store, 'db' | 'sessions' | 'prompts' | 'audit'>,
  session: SessionRecord,
  isAlive: IsAlive = isProcessAlive,
): boolean {
  if (session.status !== 'active') return true;
  if (store.sessions.ownerAlive(session, isAlive)) return false;
  store.db
    .transaction(() => {
      if (!store.sessions.end(session.id, 'crashed', null)) return; // someone else noticed first
      const reason = `${SESSION_CRASHED}: its agent-bridge process (pid ${session.owner.pid}) is gone`;
      for (const prompt of store.prompts.open(session.id)) {
        if (store.prompts.close(prompt.id, 'failed', 'agent-bridge', reason))
          store.audit.record('PROMPT_FAILED', { session_id: session.id, prompt_id: prompt.id, reason });
      }
      store.audit.record('SESSION_END', {
        session_id: session.id,
        status: 'crashed',
        exit_code: null,
        signal: null,
        reason,
        noticed_by: `pid ${process.pid}`,
      });
    })
    .immediate();
  return true;
}

/** Closes every active session of this machine whose process is gone; returns them (their labels restart). */
export function reapDeadSessions(
  store: Pick<Store, 'db' | 'sessions' | 'prompts' | 'audit'>,
  isAlive: IsAlive = isProcessAlive,
): SessionRecord[] {
  const dead = store.sessions.deadOwners(isAlive);
  for (const session of dead) reapIfDead(store, session, isAlive);
  return dead;
}
