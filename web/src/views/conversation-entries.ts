import { h, type Child } from '../dom.js';
import type { ConversationEntry } from '../types.js';
import { KIND_TITLES } from './common.js';
import { diffBlock, diffStat } from './diff-block.js';

/**
 * One entry of a conversation as the page shows it. Everything the agent or a person said is put in as text
 * (text nodes, never HTML): a message with `<script>` in it shows `<script>`.
 */

/** A diff longer than this is shown folded: its file and size, opened on demand. */
export const FOLDED_DIFF_LINES = 30;

type Of<K extends ConversationEntry['kind']> = Extract<ConversationEntry, { kind: K }>;

export function entryElement(entry: ConversationEntry): HTMLElement {
  const element = render(entry);
  element.dataset.testid = `entry-${entry.id}`;
  element.dataset.kind = entry.kind;
  element.title = new Date(entry.at).toLocaleString();
  return element;
}

function render(entry: ConversationEntry): HTMLElement {
  switch (entry.kind) {
    case 'agent':
      return said('agent', 'Agent', entry.text);
    case 'person':
      return said('person', 'You', entry.text, outcomeNote(entry));
    case 'tool':
      return toolCard(entry);
    case 'diff':
      return diffEntry(entry);
    case 'plan':
      return planEntry(entry);
    case 'prompt':
      return h('p', { class: 'entry-note' }, [
        h('span', { class: 'entry-label' }, [
          `Asked (${KIND_TITLES[entry.promptKind] ?? entry.promptKind}): `,
        ]),
        entry.text,
      ]);
    case 'note':
      return h('p', { class: 'entry-note' }, [entry.text]);
  }
}

function said(who: 'agent' | 'person', label: string, text: string, note: Child = null): HTMLElement {
  return h('article', { class: `msg msg-${who}` }, [
    h('p', { class: 'msg-who' }, [label]),
    h('p', { class: 'msg-text' }, [text]),
    note,
  ]);
}

function outcomeNote(entry: Of<'person'>): Child {
  if (entry.outcome === 'held')
    return h('p', { class: 'msg-note' }, ['Waits until the prompt is answered (it is never typed into it).']);
  if (entry.outcome === 'answered') return h('p', { class: 'msg-note' }, ['Answered the waiting prompt.']);
  return null;
}

const TOOL_STATUS: Record<Of<'tool'>['status'], string> = {
  running: 'running…',
  done: 'done',
  failed: 'failed',
};

function toolCard(entry: Of<'tool'>): HTMLElement {
  return h('div', { class: `tool-entry tool-${entry.status}` }, [
    h('span', { class: 'tool-name' }, [entry.tool]),
    h('span', { class: 'tool-text' }, [entry.text]),
    h('span', { class: 'tool-status', 'data-testid': `tool-status-${entry.id}` }, [
      TOOL_STATUS[entry.status],
    ]),
  ]);
}

/** A diff: its file and size always; the lines themselves open, or folded when long. */
function diffEntry(entry: Of<'diff'>): HTMLElement {
  const { added, removed, lines } = diffStat(entry.diff);
  const details = h('details', { class: 'diff-entry' }, [
    h('summary', {}, [
      h('span', { class: 'entry-label' }, [entry.proposed ? 'Proposed change: ' : 'Changed: ']),
      h('span', { class: 'mono' }, [entry.file]),
      h('span', { class: 'diff-stat' }, [
        ' ',
        h('span', { class: 'diff-add' }, [`+${added}`]),
        ' ',
        h('span', { class: 'diff-del' }, [`−${removed}`]),
        lines > FOLDED_DIFF_LINES ? ` · ${lines} lines` : '',
      ]),
    ]),
    diffBlock(entry.diff, { 'aria-label': `Diff of ${entry.file}` }),
  ]);
  details.open = lines <= FOLDED_DIFF_LINES;
  return details;
}

/** Marks in ordinary fonts (an emoji font is not everywhere), and words for screen readers. */
const STEP_MARKS: Record<Of<'plan'>['steps'][number]['status'], [string, string]> = {
  completed: ['✓', 'done'],
  in_progress: ['◐', 'in progress'],
  pending: ['○', 'to do'],
};

function planEntry(entry: Of<'plan'>): HTMLElement {
  return h('div', { class: 'plan-entry' }, [
    h('p', { class: 'entry-label' }, ['Plan']),
    h(
      'ol',
      {},
      entry.steps.map((step) => {
        const [mark, status] = STEP_MARKS[step.status];
        return h('li', { class: `step-${step.status}` }, [
          h('span', { class: 'step-mark', 'aria-hidden': 'true' }, [`${mark} `]),
          h('span', { class: 'visually-hidden' }, [`${status}: `]),
          step.text,
        ]);
      }),
    ),
  ]);
}
