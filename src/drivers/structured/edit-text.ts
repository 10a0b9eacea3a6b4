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

/** A change to a file for the chat: the file and its diff in a fenced block (sent as a file when long). */
export function editMessage(file: string, diff: string): string {
  return `✏️ ${file}\n\`\`\`diff\n${diff}\n\`\`\``;
}

/**
 * A proposed change longer than this is also posted whole, as a message before the prompt that asks about it
 * (as a file where it is long): chats show only the start of a prompt's detail (Discord about 1,400 characters).
 */
export const LONG_DIFF_CHARS = 1_200;

/** The message that shows a proposed change in full, before its prompt; null when the prompt can show it. */
export function proposedChange(file: string, diff: string): string | null {
  return diff.length > LONG_DIFF_CHARS ? `✏️ ${file} (proposed)\n\`\`\`diff\n${diff}\n\`\`\`` : null;
}

export interface PlanEntry {
  content: string;
  status?: string;
}

const MARKS: Record<string, string> = { completed: '✅', in_progress: '⏳', inProgress: '⏳' };

/** The agent's plan as a numbered list, each step marked done, in progress or to do. */
export function planText(entries: readonly PlanEntry[]): string {
  const lines = entries.map((e, i) => `${i + 1}. ${MARKS[e.status ?? ''] ?? '⬜'} ${e.content.trim()}`);
  return `📋 Plan\n${lines.join('\n')}`;
}

/** Whether a plan's steps (not their progress) changed since `previous`: a new plan is worth a message. */
export function planChanged(previous: readonly PlanEntry[] | null, next: readonly PlanEntry[]): boolean {
  if (!previous || previous.length !== next.length) return true;
  return previous.some((entry, i) => entry.content !== next[i]!.content);
}
