import { createPatch } from 'diff';

/** Lines of context around each change, as `git diff` shows them. */
const CONTEXT_LINES = 3;

/** A unified diff of one file's change, without the `Index:`/`====` preamble. */
export function unifiedDiff(file: string, before: string, after: string): string {
  const patch = createPatch(file, before, after, '', '', { context: CONTEXT_LINES });
  return patch
    .split('\n')
    .filter((line, i) => !(i < 2 && (line.startsWith('Index: ') || /^=+$/.test(line))))
    .join('\n')
    .trimEnd();
}

const EDIT_MARK = '✏️ ';
const PROPOSED = ' (proposed)';

/** A change to a file for the chat: the file and its diff in a fenced block (sent as a file when long). */
export function editMessage(file: string, diff: string): string {
  return `${EDIT_MARK}${file}\n\`\`\`diff\n${diff}\n\`\`\``;
}

/**
 * A proposed change longer than this is also posted whole, as a message before the prompt that asks about it
 * (as a file where it is long): chats show only the start of a prompt's detail (Discord about 1,400 characters).
 */
export const LONG_DIFF_CHARS = 1_200;

/** The message that shows a proposed change in full, before its prompt; null when the prompt can show it. */
export function proposedChange(file: string, diff: string): string | null {
  return diff.length > LONG_DIFF_CHARS ? editMessage(`${file}${PROPOSED}`, diff) : null;
}

/**
 * A change message (editMessage, proposedChange) read back, for views that show a diff as a diff (the web
 * UI's conversation); null for any other text.
 */
export function readEditMessage(text: string): { file: string; diff: string; proposed: boolean } | null {
  if (!text.startsWith(EDIT_MARK)) return null;
  const lineEnd = text.indexOf('\n');
  const fence = '\n```diff\n';
  if (lineEnd < 0 || text.indexOf(fence) !== lineEnd || !text.endsWith('\n```')) return null;
  const name = text.slice(EDIT_MARK.length, lineEnd);
  const diff = text.slice(lineEnd + fence.length, -'\n```'.length);
  const proposed = name.endsWith(PROPOSED);
  const file = proposed ? name.slice(0, -PROPOSED.length) : name;
  return file ? { file, diff, proposed } : null;
}

export interface PlanEntry {
  content: string;
  status?: string;
}

const MARKS: Record<string, string> = { completed: '✅', in_progress: '⏳', inProgress: '⏳' };
const TODO_MARK = '⬜';
const PLAN_HEAD = '📋 Plan';

/** The agent's plan as a numbered list, each step marked done, in progress or to do. */
export function planText(entries: readonly PlanEntry[]): string {
  const lines = entries.map((e, i) => `${i + 1}. ${MARKS[e.status ?? ''] ?? TODO_MARK} ${e.content.trim()}`);
  return `${PLAN_HEAD}\n${lines.join('\n')}`;
}

export type PlanStatus = 'pending' | 'in_progress' | 'completed';

/** A plan message (planText) read back as its steps, for views that show it as a list; null for other text. */
export function readPlanText(text: string): Array<{ content: string; status: PlanStatus }> | null {
  const [head, ...lines] = text.split('\n');
  if (head !== PLAN_HEAD || lines.length === 0) return null;
  const steps: Array<{ content: string; status: PlanStatus }> = [];
  for (const [i, line] of lines.entries()) {
    const number = `${i + 1}. `;
    const mark = [...line.slice(number.length)][0];
    if (!line.startsWith(number) || mark === undefined) return null;
    const status: PlanStatus | null =
      mark === MARKS.completed
        ? 'completed'
        : mark === MARKS.in_progress
          ? 'in_progress'
          : mark === TODO_MARK
            ? 'pending'
            : null;
    const rest = line.slice(number.length + mark.length);
    if (!status || !rest.startsWith(' ')) return null;
    steps.push({ content: rest.slice(1), status });
  }
  return steps;
}

/** Whether a plan's steps (not their progress) changed since `previous`: a new plan is worth a message. */
export function planChanged(previous: readonly PlanEntry[] | null, next: readonly PlanEntry[]): boolean {
  if (!previous || previous.length !== next.length) return true;
  return previous.some((entry, i) => entry.content !== next[i]!.content);
}
