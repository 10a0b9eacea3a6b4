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
/** One answer in a list of them: `y`, `N`, `yes`, `Cancel`, `?`. */
const ANSWER = String.raw`[a-z?]{1,12}`;
/**
 * What a bracketed hint of the answers holds: alternatives, one of them a letter or yes/no (`y/N`, `Y/n/a`,
 * `yes/no`, `y,n,q,?`, `Yes/No/Cancel`), a range (`1-3`, `0..9`), or a default (`default: main`). Not a word
 * (`hello`, `ok`, `INFO`), a count (`1/3`) or a path (`src/lib`).
 */
const CHOICES = [
  String.raw`(?=(?:[^\])]*?[\s/,|])?(?:yes|no|[a-z?])[\s/,|\])])${ANSWER}(?:\s*[/,|]\s*${ANSWER})+`,
  String.raw`\d+\s*(?:-|–|\.\.)\s*\d+`,
  String.raw`default\b[^\][()]*`,
].join('|');
/** A bracketed hint of the answers a question takes: `[y/N]`, `(yes/no)`, `[1-3]`, `[default: main]`. */
const CHOICE_HINT = String.raw`(?:\[\s*(?:${CHOICES})\s*\]|\(\s*(?:${CHOICES})\s*\))`;
/**
 * How a line that asks ends: `?` (with anything bracketed after it: `Proceed? [Y/n]`, `Name? (optional)`),
 * `:` (with a hint of the answers after it: `Branch: [default: main]`), or a hint of the answers (`Continue
 * [y/N]`, `Pick one [1-3]:`). Output that merely ends in brackets asks nothing: `You said: [y]`, `got:
 * [hello]`, `Downloading [1/3]`.
 */
export const QUESTION_END = new RegExp(
  String.raw`(?:\?\s*(?:\([^)]*\)|\[[^\]]*\])?|:\s*${CHOICE_HINT}?|${CHOICE_HINT})\s*[:?>]?\s*$`,
  'i',
);

/** Whether a line asks for an answer: it ends as a question does, or in a y/n question. */
export function lineAsks(line: string): boolean {
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
  while (asking >= 0 && !lineAsks(lines[asking]!)) asking--;
  let start = Math.max(asking, 0);
  const width = (from: number) => lines.slice(from, asking + 1).join(' ').length;
  while (asking > 0 && start > 0 && lineAsks(lines[start - 1]!) && width(start - 1) <= max) start--;
  const line = lines.slice(start).join(' ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
