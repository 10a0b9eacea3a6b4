import { truncateExcerpt, type DetectedPrompt } from '../../core/prompt.js';
import { redactSecrets } from '../../core/redact.js';
import { chooseNo, detectQuestionMenu, menuPrompt } from '../../core/prompt-patterns.js';
import type { ScreenVocabulary, ScreenView } from '../../core/screen-vocabulary.js';
import { findMenu, findRowAbove, isRule, lastContentRow, unbox } from '../../core/screen-text.js';

/** Claude Code's prompts as its TUI draws them (agent-facts 02–08, Claude Code 2.1). */

const PERMISSION =
  /Do you want to (?:proceed|make this edit|create|overwrite|allow|run|fetch|delete|use)\b.*\?/;
const TRUST = /Yes, I trust this folder/;
const API_KEY = /Do you want to use this API key\?/;
const PLAN = /Would you like to proceed\?|Exit plan mode\?/;
const QUESTION_HINT = /Enter to select · ↑\/↓ to navigate|☐ |☒ |✔ Submit/;

function permission(screen: ScreenView): DetectedPrompt | null {
  return detectQuestionMenu(screen, {
    kind: 'permission',
    question: PERMISSION,
    contextStart: /^[\s─]{20,}$/,
    safeDefault: chooseNo,
    allowForSession: /^Yes, and (?:always|don't ask)/i,
  });
}

function trust(screen: ScreenView): DetectedPrompt | null {
  const menu = findMenu(screen.lines);
  if (!menu || !menu.choices.some((c) => TRUST.test(c.label))) return null;
  // Answering "No, exit" ends Claude: on expiry nothing is typed.
  return menuPrompt('permission', screen.lines, menu, { safeDefault: null });
}

function apiKey(screen: ScreenView): DetectedPrompt | null {
  return detectQuestionMenu(screen, { kind: 'permission', question: API_KEY, safeDefault: chooseNo });
}

function plan(screen: ScreenView): DetectedPrompt | null {
  const prompt = detectQuestionMenu(screen, {
    kind: 'plan',
    question: PLAN,
    contextStart: /^[\s─]{20,}$|Here is Claude's plan|Ready to code\?/,
    // Rejecting keeps Claude planning: nothing changes on disk.
    safeDefault: (menu) => {
      const keep = menu.choices.find((c) => /keep planning/i.test(c.label));
      return keep ? { type: 'choice', number: keep.number } : chooseNo(menu);
    },
  });
  const aboutPlanning = prompt && /plan/i.test(prompt.detail + prompt.choices.map((c) => c.label).join(' '));
  return aboutPlanning ? prompt : null;
}

/** AskUserQuestion: a tab header (☐ Topic), the question, options with descriptions. */
function question(screen: ScreenView): DetectedPrompt | null {
  if (findRowAbove(screen.lines, QUESTION_HINT) < 0) return null;
  const menu = findMenu(screen.lines, 8);
  if (!menu) return null;
  const headerRow = findRowAbove(screen.lines, /[☐☒✔]/, menu.firstRow);
  const from = headerRow >= 0 ? headerRow : Math.max(0, menu.firstRow - 4);
  const asked = screen.lines
    .slice(from, menu.firstRow)
    .map((l) => unbox(l).trim())
    .filter((l) => l && !isRule(l))
    .join(' — ');
  return { ...menuPrompt('question', screen.lines, menu), excerpt: truncateExcerpt(redactSecrets(asked)) };
}

/** The input box between two rules with ❯, and no dialog: Claude waits for a new message. */
function isIdle(screen: ScreenView): boolean {
  const bottom = lastContentRow(screen.lines);
  const tail = screen.lines.slice(Math.max(0, bottom - 5), bottom + 1);
  const box = tail.findIndex((line) => /^❯\s/.test(line) || line.trim() === '❯');
  return box > 0 && isRule(tail[box - 1]!) && !findMenu(screen.lines, 3);
}

export const claudeScreens: ScreenVocabulary = {
  detect: (screen) =>
    permission(screen) ?? plan(screen) ?? apiKey(screen) ?? trust(screen) ?? question(screen),
  isIdle,
  menuKeys: 'digit',
  interruptKeys: '\x1b',
};
