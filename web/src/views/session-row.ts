import { api } from '../api.js';
import { button, h } from '../dom.js';
import { ago, baseName, recordingId } from '../format.js';
import { href, sessionRoute } from '../router.js';
import { store } from '../store.js';
import { toast } from '../toast.js';
import type { Session } from '../types.js';
import {
  confirmRestart,
  endedText,
  errorText,
  restartLabel,
  stateBadge,
  stopWithConfirmation,
} from './common.js';

/**
 * One session on the dashboard: its name (given, or its first prompt, or agent and folder), where and since
 * when, its state, waiting prompts; Open (its terminal, or its conversation) or Watch, Stop, Restart or Start
 * again, Resume, Replay.
 */
type Act = (what: 'stop' | 'restart' | 'resume', target: HTMLButtonElement) => Promise<void>;

export function sessionRow(session: Session): HTMLElement {
  const { id } = session;
  const exited = session.state === 'exited';
  const act: Act = async (what, target) => {
    target.disabled = true;
    try {
      if (what === 'stop') {
        if (await stopWithConfirmation(session)) toast(`Stopped ${session.name}.`, { kind: 'ok' });
      } else {
        if (what === 'restart' && !(await confirmRestart(session))) return;
        const next = what === 'resume' ? await api.resume(id) : await api.restart(id);
        toast(`${what === 'resume' ? 'Resumed' : exited ? 'Started' : 'Restarted'} ${next.name}.`, {
          kind: 'ok',
          actions: [{ label: 'Open', run: () => (location.hash = href(sessionRoute(next))) }],
        });
      }
      void store.refreshSessions();
    } catch (error) {
      const label = what === 'stop' ? 'Stop' : what === 'resume' ? 'Resume' : restartLabel(session);
      toast(`${label} failed: ${errorText(error)}`, { kind: 'error' });
    } finally {
      target.disabled = false;
    }
  };
  const where = [
    session.agent,
    baseName(session.cwd),
    store.config && session.host !== store.config.host ? session.host : null,
    session.runsIn === 'terminal' ? 'in a terminal (agent-bridge run)' : null,
  ].filter(Boolean);
  const row = h('article', { class: 'card session-row', 'data-testid': `session-row-${id}` }, [
    h('div', { class: 'row-main' }, [
      h('div', { class: 'row-title' }, [
        h('h3', { class: 'session-name', 'data-testid': `session-name-${id}` }, [session.name]),
        stateBadge(session.state, `state-${id}`),
        session.pendingPrompts > 0
          ? h('a', { class: 'pill', href: href({ name: 'inbox' }), 'data-testid': `pending-${id}` }, [
              session.pendingPrompts > 1 ? `Answer (${session.pendingPrompts})` : 'Answer',
            ])
          : null,
      ]),
      h('div', { class: 'row-sub' }, [
        where.join(' · '),
        ' · started ',
        h('span', { 'data-since': session.startedAt }, [ago(session.startedAt)]),
        exited ? ` · ${endedText(session)}` : '',
      ]),
      h('div', { class: 'row-sub mono' }, [session.cwd]),
    ]),
    rowActions(session, act),
  ]);
  row.dataset.key = id;
  row.dataset.sig = rowSignature(session);
  return row;
}

/**
 * What a row shows, to tell whether it must be drawn again: the session, and this machine's name (known once
 * the configuration arrived, perhaps after the list), which says whether the row names the session's machine.
 */
export function rowSignature(session: Session): string {
  return JSON.stringify([session, store.config?.host ?? null]);
}

/** Open (or Watch), Stop, Restart or Start again, Resume, the recording: only what this session allows. */
function rowActions(session: Session, act: Act): HTMLElement {
  const { id } = session;
  const exited = session.state === 'exited';
  return h('div', { class: 'row-actions' }, [
    session.live || session.conversation
      ? h('a', { class: 'btn btn-primary', href: href(sessionRoute(session)), 'data-testid': `open-${id}` }, [
          session.live && !session.canType ? 'Watch' : 'Open',
        ])
      : null,
    !exited && session.canStop
      ? button('Stop', { class: 'btn btn-danger', 'data-testid': `stop-${id}` }, (event) =>
          act('stop', event.currentTarget as HTMLButtonElement),
        )
      : null,
    session.canRestart
      ? button(restartLabel(session), { class: 'btn', 'data-testid': `restart-${id}` }, (event) =>
          act('restart', event.currentTarget as HTMLButtonElement),
        )
      : null,
    exited && session.canResume
      ? button('Resume', { class: 'btn', 'data-testid': `resume-${id}` }, (event) =>
          act('resume', event.currentTarget as HTMLButtonElement),
        )
      : null,
    session.recording
      ? h(
          'a',
          {
            class: 'btn btn-quiet',
            href: href({ name: 'recording', id: recordingId(session.recording) }),
            'data-testid': `replay-${id}`,
          },
          ['Recording'],
        )
      : null,
  ]);
}
