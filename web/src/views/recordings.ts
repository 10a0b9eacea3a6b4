import { api } from '../api.js';
import { h, replace } from '../dom.js';
import { ago, baseName, bytes, clock } from '../format.js';
import { href } from '../router.js';
import type { Recording } from '../types.js';
import { errorText, note } from './common.js';

/** #/recordings: the recorded sessions, newest first. */
export function recordingsView(root: HTMLElement): () => void {
  const list = h('div', { class: 'list', 'data-testid': 'recordings' });
  const status = note('Loading…');
  replace(root, [
    h('section', { class: 'view', 'aria-labelledby': 'rec-title' }, [
      h('h1', { id: 'rec-title' }, ['Recordings']),
      list,
      status,
    ]),
  ]);
  let alive = true;
  api
    .recordings()
    .then((recordings) => {
      if (!alive) return;
      const sorted = [...recordings].sort((a, b) => (b.startedAt ?? '').localeCompare(a.startedAt ?? ''));
      status.hidden = sorted.length > 0;
      status.textContent = 'No recordings yet.';
      replace(list, sorted.map(recordingCard));
    })
    .catch((error: unknown) => {
      if (alive) status.textContent = `Could not list recordings: ${errorText(error)}`;
    });
  return () => {
    alive = false;
  };
}

/** A recording is named as its session is (its name, first prompt, or agent and folder). */
export function recordingName(recording: Recording): string {
  return recording.session?.name ?? recording.command ?? recording.title ?? recording.id;
}

function recordingCard(recording: Recording): HTMLElement {
  const name = recordingName(recording);
  const session = recording.session;
  return h('article', { class: 'card recording-row', 'data-testid': `recording-${recording.id}` }, [
    h('div', { class: 'row-main' }, [
      h('div', { class: 'row-title' }, [h('h2', { class: 'recording-name' }, [name])]),
      h('div', { class: 'row-sub' }, [
        [
          session ? `${session.agent} · ${baseName(session.cwd)}` : null,
          ago(recording.startedAt),
          clock(recording.durationSeconds),
          bytes(recording.bytes),
        ]
          .filter(Boolean)
          .join(' · '),
      ]),
      recording.command && recording.command !== name
        ? h('div', { class: 'row-sub mono' }, [recording.command])
        : null,
    ]),
    h('div', { class: 'row-actions' }, [
      h(
        'a',
        {
          class: 'btn btn-primary',
          href: href({ name: 'recording', id: recording.id }),
          'data-testid': `play-${recording.id}`,
        },
        ['Play'],
      ),
    ]),
  ]);
}
