import type { DialogKeys } from '../../core/dialog-keys.js';
import { textChoiceOf, truncateExcerpt, type DetectedPrompt } from '../../core/prompt.js';
import { redactSecrets } from '../../core/redact.js';
import { chooseNo, detectQuestionMenu, menuPrompt } from '../../core/prompt-patterns.js';
import type { ScreenVocabulary, ScreenView } from '../../core/screen-vocabulary.js';
import { findMenu, findRowAbove, isRule, lastContentRow, unbox } from '../../core/screen-text.js';
import { checkboxMenu, keyed } from '../dialog.js';
import { unsentChecker, type InputBoxShape } from '../input-box.js';

/** Claude Code's prompts as its TUI draws them (agent-facts 02–08, test/golden/prompts/claude, Claude Code 2.1). */

const PERMISSION =
  /Do you want to (?:proceed|make this edit|create|overwrite|allow|run|fetch|delete|use)\b.*\?/;
const TRUST = /Yes, I trust this folder/;
const API_KEY = /Do you want to use this API key\?/;
const PLAN = /Would you like to proceed\?|Exit plan mode\?/;
const QUESTION_HINT = /Enter to select · ↑\/↓ to navigate|☐ |☒ |✔ Submit/;

/**
 * The keys each dialog takes (measured, test/golden/live.test.ts): a digit answers at once; arrows and Enter
 * only as separate writes. Esc denies, except at the trust prompt, where it exits Claude Code.
 */
const KEYS = {
  // "No" with a reason: ↑/↓ to it, Tab ("Tab to amend"), the words, Enter: they reach Claude with the denial.
  permission: { pick: 'digit', words: 'tab', escape: 'denies' },
  trust: { pick: 'digit', escape: 'exits' },
  apiKey: { pick: 'digit', escape: 'cancels' },
  // "Tell Claude what to change": its digit opens the text field; Enter sends the words (or rejects, empty).
  plan: { pick: 'digit', words: 'in-place', escape: 'denies' },
  // "Exit plan mode?" (no plan file written): Yes / No, each at once.
  planYesNo: { pick: 'digit', escape: 'denies' },
  question: { pick: 'digit', words: 'in-place', escape: 'denies' },
  // Digits tick boxes; Tab goes to the next question's tab, or to the review tab where `1` submits.
  multiSelect: {
    pick: 'digit',
    words: 'in-place',
    multiSelect: { toggle: 'digit', submit: 'tab-then-1' },
    escape: 'denies',
  },
  multiSelectOfSeveral: {
    pick: 'digit',
    words: 'in-place',
    multiSelect: { toggle: 'digit', submit: 'tab' },
    escape: 'denies',
  },
} satisfies Record<string, DialogKeys>;

function permission(screen: ScreenView): DetectedPrompt | null {
  const prompt = detectQuestionMenu(screen, {
    kind: 'permission',
    question: PERMISSION,
    contextStart: /^[\s─]{20,}$/,
    safeDefault: chooseNo,
    allowForSession: /^Yes, (?:and (?:always|don't ask)|allow all)/i,
  });
  return keyed(prompt, KEYS.permission, screen.lines);
}

function trust(screen: ScreenView): DetectedPrompt | null {
  const menu = findMenu(screen.lines);
  if (!menu || !menu.choices.some((c) => TRUST.test(c.label))) return null;
  // Answering "No, exit" ends Claude: on expiry nothing is typed.
  return keyed(menuPrompt('permission', screen.lines, menu, { safeDefault: null }), KEYS.trust, screen.lines);
}

function apiKey(screen: ScreenView): DetectedPrompt | null {
  const prompt = detectQuestionMenu(screen, { kind: 'permission', question: API_KEY, safeDefault: chooseNo });
  return keyed(prompt, KEYS.apiKey, screen.lines);
}

function plan(screen: ScreenView): DetectedPrompt | null {
  const prompt = detectQuestionMenu(screen, {
    kind: 'plan',
    question: PLAN,
    contextStart: /^[\s─]{20,}$|Here is Claude's plan|Ready to code\?/,
    // Rejecting keeps Claude planning: nothing changes on disk.
    safeDefault: (menu) => {
      const keep = menu.choices.find((c) => /keep planning|tell claude what to change/i.test(c.label));
      return keep ? { type: 'choice', number: keep.number } : chooseNo(menu);
    },
  });
  const aboutPlanning = prompt && /plan/i.test(prompt.detail + prompt.choices.map((c) => c.label).join(' '));
  if (!aboutPlanning) return null;
  const feedback = prompt.choices.some((c) => /tell claude what to change/i.test(c.label));
  return keyed(prompt, feedback ? KEYS.plan : KEYS.planYesNo, screen.lines);
}

/** AskUserQuestion: a tab header (☐ Topic), the question, options with descriptions (boxes when multiSelect). */
function question(screen: ScreenView): DetectedPrompt | null {
  if (findRowAbove(screen.lines, QUESTION_HINT) < 0) return null;
  const found = findMenu(screen.lines, 8);
  if (!found) return null;
  const boxes = checkboxMenu(
    found,
    (label) =>
      textChoiceOf({ kind: 'question', choices: [{ number: 1, label }] }) === null &&
      !/^Chat about this/i.test(label),
  );
  const menu = boxes?.menu ?? found;
  const headerRow = findRowAbove(screen.lines, /[☐☒✔]/, menu.firstRow);
  const from = headerRow >= 0 ? headerRow : Math.max(0, menu.firstRow - 4);
  // The tab row without its arrows and Submit tab: "☐ Color ☐ Size", then the question.
  const asked = screen.lines
    .slice(from, menu.firstRow)
    .map((l) =>
      unbox(l)
        .replace(/[←→]|✔ Submit/g, '')
        .trim(),
    )
    .filter((l) => l && !isRule(l))
    .join(' — ');
  const menuFound = menuPrompt('question', screen.lines, menu);
  const prompt = {
    ...menuFound,
    excerpt: truncateExcerpt(redactSecrets(asked)),
    // A ticked box marks its tab ☒: still the same question (ticking a box is not a new prompt).
    key: menuFound.key.replaceAll('☒', '☐'),
  };
  if (!boxes) return keyed(prompt, KEYS.question, screen.lines);
  const tabs = headerRow >= 0 ? (screen.lines[headerRow]!.match(/[☐☒]/g) ?? []).length : 1;
  const keys = tabs > 1 ? KEYS.multiSelectOfSeveral : KEYS.multiSelect;
  return keyed(prompt, keys, screen.lines, { ticked: boxes.ticked });
}

/**
 * The input box between two rules with ❯, and no menu under it: Claude waits for a new message. A numbered
 * list above the box is conversation (a plan), not a dialog: Claude's dialogs take the box's place.
 */
function isIdle(screen: ScreenView): boolean {
  const bottom = lastContentRow(screen.lines);
  const start = Math.max(0, bottom - 5);
  const tail = screen.lines.slice(start, bottom + 1);
  const box = tail.findIndex((line) => /^❯\s/.test(line) || line.trim() === '❯');
  if (box < 1 || !isRule(tail[box - 1]!)) return false;
  // Claude keeps its box while it works: then its footer offers "esc to interrupt".
  if (tail.slice(box + 1).some((line) => /esc to interrupt/.test(line))) return false;
  const menu = findMenu(screen.lines, 3);
  return !menu || menu.firstRow < start + box;
}

/** The input box: ❯ and the message, down to the rule under it, with a few rows of footer. */
const INPUT_BOX: InputBoxShape = {
  marker: /^❯(?:\s|$)/,
  opens: isRule,
  closes: isRule,
  footerRows: 4,
  collapsedPaste: /^\[Pasted text #\d+/,
};

/** The agent's own dialogs, most specific first. */
function detect(screen: ScreenView): DetectedPrompt | null {
  return permission(screen) ?? plan(screen) ?? apiKey(screen) ?? trust(screen) ?? question(screen);
}

export const claudeScreens: ScreenVocabulary = {
  detect,
  isIdle,
  holdsUnsent: unsentChecker(INPUT_BOX, detect),
  menuKeys: 'digit',
  interruptKeys: ['\x1b'],
};
