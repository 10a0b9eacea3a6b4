import { api } from '../api.js';
import { askText } from '../dialog.js';
import { button, h, type Child } from '../dom.js';
import { go, sessionRoute } from '../router.js';
import { store } from '../store.js';
import { toast } from '../toast.js';
import type { Session } from '../types.js';
import { confirmRestart, endedText, errorText, restartLabel, stopWithConfirmation } from './common.js';

/** A session page's actions (its terminal's or its conversation's): Stop while it runs; once it ended, Start again and Resume. */
export function sessionActionButtons(session: Session): Child[] {
  const { id } = session;
  // The buttons may outlive this render (replaceIfChanged keeps equal ones): act on the session as it is now.
  const now = () => store.session(id) ?? session;
  const exited = session.state === 'exited';
  return [
    !exited && session.canStop
      ? button(
          'Stop',
          { class: 'btn btn-small btn-danger', 'data-testid': `stop-${id}` },
          () => void stop(now()),
        )
      : null,
    exited && session.canRestart
      ? button(
          restartLabel(session),
          { class: 'btn btn-small', 'data-testid': `restart-${id}` },
          () => void restartSession(now(), 'restart'),
        )
      : null,
    exited && session.canResume
      ? button(
          'Resume',
          { class: 'btn btn-small', 'data-testid': `resume-${id}` },
          () => void restartSession(now(), 'resume'),
        )
      : null,
    exited ? h('span', { class: 'muted small' }, [endedText(session)]) : null,
  ];
}

async function stop(session: Session): Promise<void> {
  try {
    if (await stopWithConfirmation(session)) toast('Stopped.', { kind: 'ok' });
  } catch (error) {
    toast(`Stop failed: ${errorText(error)}`, { kind: 'error' });
  }
}

/** Restarts (or starts again, or resumes) a session and shows the new one; a running one only once confirmed. */
export async function restartSession(session: Session | undefined, how: 'restart' | 'resume'): Promise<void> {
  if (!session) return;
  if (how === 'restart' && !(await confirmRestart(session))) return;
  try {
    const next = how === 'resume' ? await api.resume(session.id) : await api.restart(session.id);
    void store.refreshSessions();
    go(sessionRoute(next));
  } catch (error) {
    const label = how === 'resume' ? 'Resume' : restartLabel(session);
    toast(`${label} failed: ${errorText(error)}`, { kind: 'error' });
  }
}

/** Asks for a new name (empty: back to its first prompt) and gives it. */
export async function renameSession(session: Session | undefined, id: string): Promise<void> {
  const name = await askText('Rename this session', 'Name', session?.customName ?? session?.name ?? '');
  if (name === null) return;
  try {
    await api.rename(id, name || null);
    void store.refreshSessions();
  } catch (error) {
    toast(`Rename failed: ${errorText(error)}`, { kind: 'error' });
  }
}
