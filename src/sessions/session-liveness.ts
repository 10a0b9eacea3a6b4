import type { IsAlive } from '../core/process-ref.js';
import { isProcessAlive } from '../drivers/terminal/process-tree.js';
import type { SessionRecord } from '../store/session-store.js';
import type { Store } from '../store/store.js';
import { takeExitReport } from './host/host-files.js';

/** Why a session whose agent-bridge process vanished can no longer answer anything. */
export const SESSION_CRASHED = 'session crashed';

type LivenessStore = Pick<Store, 'db' | 'sessions' | 'prompts' | 'audit'> & { dir?: string };

/**
 * A session that is gone is closed by whoever notices first: its session host died (killed -9, power loss;
 * checked by pid and start time, so a reused pid or a zombie does not pass), or, for a session without one,
 * its agent-bridge process did. It ends as its host said the agent ended (the host writes that down before it
 * tells anyone), else `crashed`; its open prompts fail and SESSION_END is audited, once, however many
 * processes notice at once. Returns true when the session is gone (whether this call or an earlier one closed
 * it). A session whose host lives is not gone, whatever became of the agent-bridge that controlled it.
 */
export function reapIfDead(
  store: LivenessStore,
  session: SessionRecord,
  isAlive: IsAlive = isProcessAlive,
): boolean {
  if (session.status !== 'active') return true;
  if (store.sessions.ownerAlive(session, isAlive)) return false;
  const report = session.sessionHost && store.dir ? takeExitReport(store.dir, session.id) : null;
  const status = !report
    ? 'crashed'
    : report.stopped
      ? 'terminated'
      : report.exitCode === 0
        ? 'completed'
        : 'crashed';
  const gone = session.sessionHost
    ? `its session host (pid ${session.sessionHost.process.pid}) is gone`
    : `its agent-bridge process (pid ${session.owner.pid}) is gone`;
  const reason = report
    ? `the session ended while no agent-bridge controlled it`
    : `${SESSION_CRASHED}: ${gone}`;
  store.db
    .transaction(() => {
      if (!store.sessions.end(session.id, status, report?.exitCode ?? null)) return; // someone else noticed first
      for (const prompt of store.prompts.open(session.id)) {
        if (store.prompts.close(prompt.id, 'failed', 'agent-bridge', reason))
          store.audit.record('PROMPT_FAILED', { session_id: session.id, prompt_id: prompt.id, reason });
      }
      store.audit.record('SESSION_END', {
        session_id: session.id,
        status,
        exit_code: report?.exitCode ?? null,
        signal: report?.signal ?? null,
        reason,
        noticed_by: `pid ${process.pid}`,
      });
    })
    .immediate();
  return true;
}

/** Closes every active session of this machine whose process is gone; returns them (their labels restart). */
export function reapDeadSessions(store: LivenessStore, isAlive: IsAlive = isProcessAlive): SessionRecord[] {
  const dead = store.sessions.deadOwners(isAlive);
  for (const session of dead) reapIfDead(store, session, isAlive);
  return dead;
}
