import { api } from '../api.js';
import { button, h } from '../dom.js';
import { ago, baseName, recordingId } from '../format.js';
import { href } from '../router.js';
import { store } from '../store.js';
import { toast } from '../toast.js';
import type { Session } from '../types.js';
import { errorText, restartLabel, restartSession, stateBadge } from './common.js';

/** One session on the dashboard: agent, folder, state, waiting prompts; Open, Stop, Restart, Replay. */
export function sessionRow(session: Session): HTMLElement {
  const { id } = session;
  const exited = session.state === 'exited';
  // Running in another agent-bridge process (e.g. `agent-bridge run`): this server cannot attach, stop or restart it.
  const elsewhere = !exited && !session.live;
  const act = async (what: 'stop' | 'restart', target: HTMLButtonElement): Promise<void> => {
    target.disabled = true;
    try {
      if (what === 'stop') await api.stop(id);
      else {
        const next = await restartSession(id, session);
        toast(`${exited ? 'Started' : 'Restarted'} ${next.agent}.`, {
          kind: 'ok',
          actions: [{ label: 'Open', run: () => (location.hash = href({ name: 'session', id: next.id })) }],
        });
      }
      void store.refreshSessions();
    } catch (error) {
      const label = what === 'stop' ? 'Stop' : restartLabel(session);
      toast(`${label} failed: ${errorText(error)}`, { kind: 'error' });
    } finally {
      target.disabled = elsewhere;
    }
  };
  const row = h('article', { class: 'card session-row', 'data-testid': `session-row-${id}` }, [
    h('div', { class: 'row-main' }, [
      h('div', { class: 'row-title' }, [
        h('strong', {}, [session.agent]),
        h('span', { class: 'label' }, [session.label || baseName(session.cwd)]),
        stateBadge(session.state),
        session.pendingPrompts > 0
          ? h('a', { class: 'pill', href: href({ name: 'inbox' }), 'data-testid': `pending-${id}` }, [
              `${session.pendingPrompts} waiting`,
            ])
          : null,
      ]),
      h('div', { class: 'row-sub' }, [
        h('span', { class: 'mono' }, [session.cwd]),
        ' · started ',
        h('span', { 'data-since': session.startedAt }, [ago(session.startedAt)]),
        store.config && session.host !== store.config.host ? ` · ${session.host}` : '',
        elsewhere ? ' · in another process' : '',
      ]),
    ]),
    h('div', { class: 'row-actions' }, [
      session.live
        ? h(
            'a',
            { class: 'btn btn-primary', href: href({ name: 'session', id }), 'data-testid': `open-${id}` },
            ['Open'],
          )
        : h('button', { class: 'btn', type: 'button', disabled: true, 'data-testid': `open-${id}` }, [
            'Open',
          ]),
      exited
        ? null
        : button(
            'Stop',
            { class: 'btn btn-danger', 'data-testid': `stop-${id}`, disabled: elsewhere },
            (event) => act('stop', event.currentTarget as HTMLButtonElement),
          ),
      button(
        restartLabel(session),
        { class: 'btn', 'data-testid': `restart-${id}`, disabled: elsewhere },
        (event) => act('restart', event.currentTarget as HTMLButtonElement),
      ),
      session.recording
        ? h(
            'a',
            { class: 'btn btn-quiet', href: href({ name: 'recording', id: recordingId(session.recording) }) },
            ['Replay'],
          )
        : null,
    ]),
  ]);
  row.dataset.key = id;
  row.dataset.sig = JSON.stringify(session);
  return row;
}
