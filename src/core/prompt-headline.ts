/**
 * How a line that asks ends, and a prompt's one line for where a prompt gets only one (a list of
 * approvals, a phone notification, a chat's `/prompts`). No dependencies: the web app bundles it too.
 */

/**
 * A y/n question ends its line (or the text before the cursor): `Continue? (y/n) n` already holds its answer,
 * typed at the terminal, and asks nothing any more.
 */
export const YES_NO =
  /(?:\((?:y\/n|yes\/no)\)|\[(?:y\/n|Y\/n|y\/N|yes\/no)\]|press '?y'? to continue|enter y or n|\(y\)es|\? ?\[?y\]?\/\[?n\]?)[\s:?>›»]*$/i;
/** How a line that asks ends: `?`, `:`, or a bracketed hint after it (`[1-3]:`, `(y/n)`). */
export const QUESTION_END = /[?:]\s*(?:\([^)]*\)|\[[^\]]*\])?\s*[:?>]?\s*$/;

function asks(line: string): boolean {
  return QUESTION_END.test(line) || YES_NO.test(line);
}

/**
 * An excerpt in one line of at most `max` characters, from the line that asks: a shell's `read -p` question
 * comes after the output above it (`README.md`, the command line), which a line cut from the start showed
 * instead of the question. From the last line that asks, with the questions right above it that fit
 * (`Remove the cache too?` `Continue? (y/n)`) and what follows it (the command a dialog asks about); the
 * excerpt from its start when no line asks.
 */
export function promptHeadline(excerpt: string, max: number): string {
  const lines = excerpt
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
  let asking = lines.length - 1;
  while (asking >= 0 && !asks(lines[asking]!)) asking--;
  let start = Math.max(asking, 0);
  const width = (from: number) => lines.slice(from, asking + 1).join(' ').length;
  while (asking > 0 && start > 0 && asks(lines[start - 1]!) && width(start - 1) <= max) start--;
  const line = lines.slice(start).join(' ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
