import { h, type Attrs } from '../dom.js';

/** A unified diff as program text: monospace, added lines green, removed red, hunks and file names marked. */
export function diffBlock(diff: string, attrs: Attrs = {}): HTMLPreElement {
  return h(
    'pre',
    { class: 'diff', tabindex: 0, ...attrs },
    diff.split('\n').map((line) => h('span', { class: diffClass(line) }, [line + '\n'])),
  );
}

/** How many lines a diff adds and removes (its file headers not counted). */
export function diffStat(diff: string): { added: number; removed: number; lines: number } {
  const lines = diff.split('\n');
  const added = lines.filter((l) => l.startsWith('+') && !l.startsWith('+++')).length;
  const removed = lines.filter((l) => l.startsWith('-') && !l.startsWith('---')).length;
  return { added, removed, lines: lines.length };
}

function diffClass(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ')) return 'diff-file';
  if (line.startsWith('+')) return 'diff-add';
  if (line.startsWith('-')) return 'diff-del';
  if (line.startsWith('@@')) return 'diff-hunk';
  return '';
}
