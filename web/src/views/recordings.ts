import { api } from '../api.js';
import { h, replace } from '../dom.js';
import { ago, bytes, clock } from '../format.js';
import { href } from '../router.js';
import type { Recording } from '../types.js';
import { errorText, note } from './common.js';

/** #/recordings: the recorded sessions, newest first. */
export function recordingsView(root: HTMLElement): () => void {
  const list = h('div', { class: 'list', 'data-testid': 'recordings' });
  const status = note('Loading…');
  replace(root, [
    h('section', { class: 'view', 'aria-labelledby': 'rec-title' }, [
      h('h2', { id: 'rec-title' }, ['Recordings']),
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

function recordingCard(recording: Recording): HTMLElement {
  const name = recording.title || recording.command || recording.id;
  return h('article', { class: 'card recording-row', 'data-testid': `recording-${recording.id}` }, [
    h('div', { class: 'row-main' }, [
      h('div', { class: 'row-title' }, [h('strong', {}, [name])]),
      h('div', { class: 'row-sub' }, [
        [ago(recording.startedAt), clock(recording.durationSeconds), bytes(recording.bytes)]
          .filter(Boolean)
          .join(' · '),
        recording.command && recording.command !== name
          ? h('span', { class: 'mono' }, [` · ${recording.command}`])
          : null,
      ]),
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
