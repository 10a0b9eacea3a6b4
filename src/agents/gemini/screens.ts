import type { DialogKeys } from '../../core/dialog-keys.js';
import type { PromptKind } from '../../core/events.js';
import { textChoiceOf, truncateExcerpt, type DetectedPrompt } from '../../core/prompt.js';
import { chooseNo, detectQuestionMenu, menuPrompt } from '../../core/prompt-patterns.js';
import { redactSecrets } from '../../core/redact.js';
import type { ScreenVocabulary, ScreenView } from '../../core/screen-vocabulary.js';
import { findMenu, findRowAbove, isFrame, lastContentRow, unbox } from '../../core/screen-text.js';
import { checkboxMenu, keyed } from '../dialog.js';
import { inputBoxText, unsentChecker, type InputBoxShape } from '../input-box.js';

/** Gemini CLI's dialogs (agent-facts 32, test/golden/prompts/gemini): a ● menu in a box. */
const CONFIRM =
  /Allow execution of .*\?|Apply this change\?|Allow (?:this|the) .*\?|Do you want to proceed\?/;
const TRUST = /Do you trust the files in this folder\?/;
const ASK = /^\s*│?\s*Answer Questions\b/;
const PLAN = /Ready to start implementation\?/;

/** The keys each dialog takes (measured, test/golden/live.test.ts): a digit answers at once. */
const KEYS = {
  // "No, suggest changes" cancels the request; the words go in as the next message.
  confirm: { pick: 'digit', words: 'next-message', escape: 'denies' },
  trust: { pick: 'digit', escape: 'exits' },
  // "Enter a custom value": its digit opens the field in place; the words, Enter.
  question: { pick: 'digit', words: 'in-place', escape: 'cancels' },
  // Digits tick boxes; "Done" closes the list: ↑ past the first option wraps round to it, then Enter.
  multiSelect: {
    pick: 'digit',
    words: 'in-place',
    multiSelect: { toggle: 'digit', submit: 'up-past-first' },
    escape: 'cancels',
  },
  text: { pick: 'digit', escape: 'cancels' },
  plan: { pick: 'digit', words: 'in-place', escape: 'cancels' },
} satisfies Record<string, DialogKeys>;

function confirm(screen: ScreenView): DetectedPrompt | null {
  const prompt = detectQuestionMenu(screen, {
    kind: 'permission',
    question: CONFIRM,
    safeDefault: chooseNo,
    allowForSession: /for this session|always/i,
  });
  return keyed(prompt, KEYS.confirm, screen.lines);
}

function trust(screen: ScreenView): DetectedPrompt | null {
  return keyed(detectQuestionMenu(screen, { kind: 'permission', question: TRUST }), KEYS.trust, screen.lines);
}

/** ask_user: "Answer Questions", maybe a tab row, the question, then options, a text field or the review. */
function question(screen: ScreenView): DetectedPrompt | null {
  const top = findRowAbove(screen.lines, ASK);
  if (top < 0) return null;
  const menu = findMenu(screen.lines, 8);
  if (menu && menu.firstRow > top) {
    const boxes = checkboxMenu(
      menu,
      (label) => textChoiceOf({ kind: 'question', choices: [{ number: 1, label }] }) === null,
    );
    const found = menuPrompt('question', screen.lines, boxes?.menu ?? menu);
    // ▲ marks a list scrolled to fit (options beyond it are not on screen).
    const prompt = { ...found, excerpt: found.excerpt.replace(/\s*[▲▼]$/, '') };
    if (!boxes) return keyed(prompt, KEYS.question, screen.lines);
    return keyed(prompt, KEYS.multiSelect, screen.lines, { ticked: boxes.ticked });
  }
  const body = screen.lines
    .slice(top + 1, lastContentRow(screen.lines) + 1)
    .filter((line) => !isFrame(line))
    .map((line) => unbox(line).trim())
    .filter((line) => line && !/^←.*→$/.test(line));
  const hint = body.findIndex((line) => /^Enter to submit\b/.test(line));
  if (hint < 0) return null;
  // The review of several answers takes Enter; a text question takes words (its placeholder shows after >).
  const review = body.some((line) => /^Review your answers/.test(line));
  const asked = body.slice(0, hint).filter((line) => !/^>\s/.test(line));
  return keyed(textPrompt(review ? 'confirm_enter' : 'free_text', asked), KEYS.text, screen.lines);
}

function textPrompt(kind: PromptKind, asked: string[]): DetectedPrompt {
  const detail = redactSecrets(asked.join('\n'));
  return {
    kind,
    confidence: 'high',
    excerpt: truncateExcerpt(detail),
    detail,
    choices: [],
    safeDefault: null,
    key: `${kind}|${detail}`,
  };
}

function plan(screen: ScreenView): DetectedPrompt | null {
  const menu = findMenu(screen.lines, 8);
  if (!menu || findRowAbove(screen.lines, PLAN, menu.firstRow) < 0) return null;
  // Esc cancels the approval: the plan is not carried out, Gemini stays in plan mode.
  const prompt = menuPrompt('plan', screen.lines, menu, { safeDefault: { type: 'escape' } });
  return keyed(prompt, KEYS.plan, screen.lines);
}

/** The input box: > and the message, framed by ▄ and ▀ rows, then its footer; a long paste shows collapsed. */
const INPUT_BOX: InputBoxShape = {
  marker: /^\s?>\s/,
  opens: (line) => /^▄+$/.test(line.trim()),
  closes: (line) => /^▀+$/.test(line.trim()),
  footerRows: 3,
  placeholder: /^Type your message or @path\/to\/file$/,
  collapsedPaste: /^\[Pasted Text: \d+/,
};

/** The keys that empty the input box of `text`, its cursor at the end: each line from the last up. */
function clearLines(text: string): string[] {
  const lines = text.split('\n').length;
  return ['\x15', ...Array.from({ length: lines - 1 }, () => ['\x7f', '\x15']).flat()];
}

/** The agent's own dialogs, most specific first. */
function detect(screen: ScreenView): DetectedPrompt | null {
  return confirm(screen) ?? trust(screen) ?? plan(screen) ?? question(screen);
}

export const geminiScreens: ScreenVocabulary = {
  detect,
  isIdle: (screen) => {
    const bottom = lastContentRow(screen.lines);
    const tail = screen.lines.slice(Math.max(0, bottom - 9), bottom + 1);
    // Its box, empty or holding text (the message it put back after a "No"), with no dialog over it.
    const atBox =
      tail.slice(-6).some((l) => /Type your message/.test(l)) ||
      (inputBoxText(INPUT_BOX, screen) !== null && detect(screen) === null);
    // It keeps its input box while it works: then a spinner line above it offers "esc to cancel".
    return atBox && !tail.some((l) => /\(esc to cancel/.test(l));
  },
  holdsUnsent: unsentChecker(INPUT_BOX, detect),
  // A cancelled turn (a "No" to a tool) can put the last message back in the box. Ctrl-U empties the line
  // left of the cursor, Backspace joins the line above: nothing else (Ctrl-C would also arm "again to exit").
  restoresMessage: { boxText: (screen) => inputBoxText(INPUT_BOX, screen), clearKeys: clearLines },
  menuKeys: 'digit',
  // Esc cancels a running request; a SIGINT ends the Gemini CLI itself.
  interruptKeys: ['\x1b'],
  // An Enter within ~50 ms of typed text is taken as part of a paste: a new line, not a submit (measured).
  keyGapMs: 100,
};
