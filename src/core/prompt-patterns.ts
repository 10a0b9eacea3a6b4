import type { PromptKind } from './events.js';
import type { DetectedPrompt, ReplyAction } from './prompt.js';
import { truncateExcerpt } from './prompt.js';
import { QUESTION_END, YES_NO } from './prompt-headline.js';
import { redactSecrets } from './redact.js';
import { dedent, findMenu, isRule, lastContentRow, unbox, type Menu } from './screen-text.js';
import type { ScreenView } from './screen-vocabulary.js';

/**
 * Prompt patterns any terminal program may show (seed 004 §5.1), read from the rendered screen near the
 * cursor: yes/no, press-enter, numbered menus, free text. High confidence when they match.
 */
const CONFIRM_ENTER =
  /press (?:enter|return|any key)|\[press enter\]|hit (?:enter|return)|-- ?more ?--|\(END\)$/i;
const MENU_QUESTION =
  /(?:enter (?:your )?choice|select(?: an)? option|choose|pick|which|selection|#\?)\s*(?:\[[^\]]*\])?\s*[:?>]?\s*$/i;
const FREE_TEXT =
  /(?:password|passphrase|api key|token|secret|username|e-?mail|name|message|path|value|input|answer|enter [^:?]{1,40})\s*(?:\([^)]*\))?\s*[:?]\s*$/i;
const QUESTION_LINE = /\?\s*(?:\([^)]*\)|\[[^\]]*\])?\s*$/;
/** A question whose answer is a secret: never stored, never shown, only its length (issue 12). */
const SECRET_QUESTION =
  /pass(?:word|phrase|code)|\bpin\b|token|secret|api[ _-]?key|private key|credential|one[- ]time code|\botp\b|2fa|verification code/i;
/** How far above a menu its question may be (dialogs put a reason or a command in between). */
const QUESTION_REACH = 14;
const BOX_TOP = /^\s*[╭┌]|^[\s─━]{20,}$/;

/** The first row of a dialog's context: just below the nearest rule or box top above `row` (at most `max` up). */
function contextStartAbove(lines: readonly string[], row: number, boundary: RegExp, max: number): number {
  let start = row;
  while (start > 0 && row - start < max && !boundary.test(lines[start - 1]!)) start--;
  return start;
}

export function detectGenericPrompt(screen: ScreenView): DetectedPrompt | null {
  const bottom = lastContentRow(screen.lines);
  if (bottom < 0) return null;
  const cursorLine = unbox(screen.lines[screen.cursor.y] ?? '').slice(0, Math.max(screen.cursor.x, 0));
  const tail = screen.lines.slice(Math.max(0, bottom - 3), bottom + 1).map(unbox);
  const context = screen.lines.slice(Math.max(0, bottom - 8), bottom + 1);
  const last = tail.at(-1) ?? '';
  // A menu with a highlighted option is the most specific shape: its hint line may say "press enter".
  const menu = findMenu(screen.lines, 2);
  if (menu && (menu.selected !== undefined || MENU_QUESTION.test(last) || MENU_QUESTION.test(cursorLine))) {
    return menuPrompt('multiple_choice', screen.lines, menu);
  }
  if (YES_NO.test(last) || YES_NO.test(cursorLine)) {
    return build('yes_no', context, [], { type: 'no' });
  }
  if (CONFIRM_ENTER.test(last)) return build('confirm_enter', context, [], { type: 'enter' });
  const asked = cursorLine.trim() ? cursorLine : last;
  if (FREE_TEXT.test(asked) || QUESTION_LINE.test(asked)) {
    const prompt = build('free_text', context, [], null);
    return SECRET_QUESTION.test(asked) ? { ...prompt, secret: true } : prompt;
  }
  return null;
}

/**
 * A prompt built around a menu: its options are the choices; what it asks (the paragraph right above it, and a
 * line under it that asks, such as `Enter choice [1-3]:`) is the excerpt, never older output above that.
 */
export function menuPrompt(
  kind: PromptKind,
  lines: readonly string[],
  menu: Menu,
  extra: Partial<DetectedPrompt> = {},
): DetectedPrompt {
  const start = contextStartAbove(lines, menu.firstRow, BOX_TOP, 15);
  const question = dedent(lines.slice(start, menu.firstRow));
  const asking = askingLinesBelow(lines, menu.lastRow);
  const options = menu.choices.map((c) => `${c.number}. ${c.label}`).join('\n');
  const detail = redactSecrets([question, options, ...asking].filter(Boolean).join('\n'));
  // Inside a dialog (a box or rules around it) all of it is the question; in plain output, only the
  // paragraph right above the menu is: lines further up are older output (an earlier question, its answer).
  const inDialog = start > 0 && BOX_TOP.test(lines[start - 1]!);
  const asked = [inDialog ? question : lastParagraph(question, 3), ...asking].filter(Boolean).join('\n');
  return {
    kind,
    confidence: 'high',
    excerpt: truncateExcerpt(redactSecrets(asked || options)),
    detail,
    choices: menu.choices,
    safeDefault: null,
    key: `${kind}|${question}|${options}`,
    ...extra,
  };
}

/** Lines under a menu that ask for the choice (`Enter choice [1-3]:`, `Your pick?`), not hints or rules. */
function askingLinesBelow(lines: readonly string[], lastRow: number): string[] {
  return lines
    .slice(lastRow + 1)
    .map((line) => unbox(line).trim())
    .filter((line) => line && (MENU_QUESTION.test(line) || QUESTION_END.test(line)))
    .slice(0, 2);
}

/** The last block of text without a blank line in it (at most `max` lines): what is being asked now. */
function lastParagraph(text: string, max: number): string {
  const lines = text.split('\n');
  let start = lines.length;
  while (start > 0 && lines[start - 1]!.trim()) start--;
  return lines.slice(Math.max(start, lines.length - max)).join('\n');
}

function build(
  kind: PromptKind,
  context: readonly string[],
  choices: DetectedPrompt['choices'],
  safeDefault: ReplyAction | null,
): DetectedPrompt {
  const text = redactSecrets(dedent(context));
  return {
    kind,
    confidence: 'high',
    excerpt: truncateExcerpt(lastParagraph(text.trimEnd(), 4)),
    detail: text,
    choices,
    safeDefault,
    key: `${kind}|${text}`,
  };
}

export interface QuestionMenuOptions {
  kind: PromptKind;
  /** The line that asks, e.g. /Do you want to proceed\?/. */
  question: RegExp;
  /** Where the dialog's context starts above the question (a rule or box top), searched upwards. */
  contextStart?: RegExp;
  /** Picks the safe default and the "allow for this session" option from the menu's labels. */
  safeDefault?: (menu: Menu) => ReplyAction | null;
  allowForSession?: RegExp;
}

/**
 * The common dialog shape of agent TUIs: context (a command, a diff, a question), a line that asks, then a
 * numbered menu. Returns a prompt whose detail is the context and question, or null when the shape is absent.
 */
export function detectQuestionMenu(screen: ScreenView, options: QuestionMenuOptions): DetectedPrompt | null {
  const menu = findMenu(screen.lines);
  if (!menu) return null;
  let questionRow = -1;
  for (let row = menu.firstRow - 1; row >= Math.max(0, menu.firstRow - QUESTION_REACH); row--) {
    if (options.question.test(screen.lines[row]!)) {
      questionRow = row;
      break;
    }
  }
  if (questionRow < 0) return null;
  const start = contextStartAbove(screen.lines, questionRow, options.contextStart ?? BOX_TOP, 30);
  // Context may sit above the question (Claude: the command) or between it and the menu (Codex: the reason).
  const above = dedent(screen.lines.slice(start, questionRow));
  const below = dedent(screen.lines.slice(questionRow + 1, menu.firstRow));
  const context = [above, below].filter(Boolean).join('\n');
  const question = unbox(screen.lines[questionRow]!).trim();
  const detail = redactSecrets([above, question, below].filter(Boolean).join('\n\n'));
  const summary = context
    .split('\n')
    // A diff's dashed frame (Claude's edit dialogs) says nothing.
    .filter((l) => l.trim() && !isRule(l))
    .slice(0, 3)
    .join(' · ');
  const allow = options.allowForSession
    ? menu.choices.find((c) => options.allowForSession!.test(c.label))
    : undefined;
  const prompt: DetectedPrompt = {
    kind: options.kind,
    confidence: 'high',
    excerpt: truncateExcerpt(redactSecrets(summary ? `${question} — ${summary}` : question)),
    detail,
    choices: menu.choices,
    safeDefault: options.safeDefault ? options.safeDefault(menu) : null,
    key: `${options.kind}|${detail}|${menu.choices.map((c) => c.label).join('|')}`,
  };
  if (allow) prompt.allowForSessionChoice = allow.number;
  return prompt;
}

/** The safe default of a permission menu: the option that says no, else none. */
export function chooseNo(menu: Menu): ReplyAction | null {
  const no = menu.choices.find((c) => /^(no|deny|reject|don't|do not)\b/i.test(c.label));
  return no ? { type: 'choice', number: no.number } : null;
}
