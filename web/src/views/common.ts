import { h } from '../dom.js';
import { api, ApiError } from '../api.js';
import { store } from '../store.js';
import type { Session, SessionState } from '../types.js';

/** Pieces several views share. */

const STATE_LABELS: Record<SessionState, string> = {
  busy: 'busy',
  waiting: 'waiting for you',
  idle: 'idle',
  exited: 'exited',
};

export function stateBadge(state: SessionState): HTMLElement {
  return h('span', { class: `state state-${state}`, 'data-state': state }, [STATE_LABELS[state] ?? state]);
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An empty-state or loading line. */
export function note(text: string, testid?: string): HTMLElement {
  return h('p', { class: 'note', 'data-testid': testid }, [text]);
}

export { KIND_TITLES } from '../../../src/channels/view-types.js';

/**
 * Restart: a running session through the API. One that ended (which the server cannot restart, and may no
 * longer list) starts again with the same agent in the same folder; its extra arguments are not known here.
 */
export async function restartSession(id: string, known: Session | undefined): Promise<Session> {
  if (!known) return api.restart(id);
  if (known.state === 'exited') return api.start(known.agent, known.cwd, []);
  try {
    return await api.restart(id);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
    await store.refreshSessions();
    const now = store.session(id);
    if (now && now.state !== 'exited') {
      throw new Error(
        'this session was not started from this page: stop it where it runs, then start a new one',
      );
    }
    return api.start(known.agent, known.cwd, []);
  }
}

export function restartLabel(session: Session | undefined): string {
  return session?.state === 'exited' ? 'Start again' : 'Restart';
}
