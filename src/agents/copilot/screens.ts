import type { DialogKeys } from '../../core/dialog-keys.js';
import type { PromptChoice } from '../../core/events.js';
import { truncateExcerpt, type DetectedPrompt } from '../../core/prompt.js';
import { detectQuestionMenu, menuPrompt } from '../../core/prompt-patterns.js';
import { redactSecrets } from '../../core/redact.js';
import type { ScreenVocabulary, ScreenView } from '../../core/screen-vocabulary.js';
import { findMenu, findRowAbove, isRule, lastContentRow, unbox, type Menu } from '../../core/screen-text.js';
import { keyed } from '../dialog.js';
import { unsentChecker, type InputBoxShape } from '../input-box.js';

/** Copilot CLI's dialogs (agent-facts 40–41, test/golden/prompts/copilot): a ❯ menu in a box, or a form. */
const CONFIRM = /Do you want to (?:run this command|edit|create|allow|use|proceed).*\?/;
const TRUST = /Do you trust the files in this folder\?/;
const PLAN = /Plan Ready for Review/;
const FORM_TOP = /^\s*Copilot needs information\./;
const FORM_HINT = /↑\/↓ select · .*enter accept/;
/** A form's option row: ` ❯ Red` (highlighted) or `   Blue`; a multi-select one has `• ` or `✓ ` too. */
const FORM_OPTION = /^ ([❯ ]) (?:([•✓]) )?(\S.*?)\s*$/;

/** Typed after "No, and tell Copilot what to do differently", which refuses to close without words. */
export const COPILOT_DENIAL_WORDS = 'Denied through agent-bridge.';

/**
 * The keys each dialog takes (measured, test/golden/live.test.ts). Esc aborts Copilot's whole turn (its model
 * is not told), so no safe default types it: a "No" goes with words instead.
 */
const KEYS = {
  // "No, and tell Copilot…": its digit only highlights it; the words, then Enter.
  permission: {
    pick: 'digit',
    words: 'in-place',
    defaultWords: COPILOT_DENIAL_WORDS,
    escape: 'aborts-turn',
  },
  // A path outside the folder: "No (Esc)" denies at once and ends the turn.
  access: { pick: 'digit', escape: 'aborts-turn' },
  trust: { pick: 'digit', escape: 'exits' },
  // ask_user's form ignores digits: ↑/↓ then Enter; moving onto "Other" opens its text field.
  form: { pick: 'arrows', words: 'in-place', escape: 'cancels' },
  formMultiSelect: {
    pick: 'arrows',
    words: 'in-place',
    multiSelect: { toggle: 'space', submit: 'enter' },
    escape: 'cancels',
  },
  plan: { pick: 'digit', words: 'in-place', escape: 'cancels' },
} satisfies Record<string, DialogKeys>;

function permission(screen: ScreenView): DetectedPrompt | null {
  const prompt = detectQuestionMenu(screen, {
    kind: 'permission',
    question: CONFIRM,
    safeDefault: (menu) => {
      const no = menu.choices.find((c) => /^No\b/.test(c.label));
      return no ? { type: 'choice', number: no.number } : null;
    },
    allowForSession: /don't ask again|remember/i,
  });
  const tellCopilot = prompt?.choices.some((c) => /tell Copilot what to do differently/i.test(c.label));
  return keyed(prompt, tellCopilot ? KEYS.permission : KEYS.access, screen.lines);
}

function trust(screen: ScreenView): DetectedPrompt | null {
  return keyed(detectQuestionMenu(screen, { kind: 'permission', question: TRUST }), KEYS.trust, screen.lines);
}

/** Labels Copilot wraps onto the next row (in its box) put back together. */
function unwrapLabels(lines: readonly string[], menu: Menu): Menu {
  const rows: number[] = [];
  for (let row = menu.firstRow; row <= menu.lastRow + 2 && row < lines.length; row++)
    if (/^\s*(?:❯\s*)?\d+\.\s/.test(unbox(lines[row]!))) rows.push(row);
  const choices = menu.choices.map((choice, i) => {
    const from = rows[i]! + 1;
    const to = rows[i + 1] ?? from + 2;
    const more: string[] = [];
    for (let row = from; row < to && row < lines.length; row++) {
      const text = unbox(lines[row]!).trim();
      if (!text || isRule(text) || /↑\/↓/.test(text)) break;
      more.push(text);
    }
    return { ...choice, label: [choice.label, ...more].join(' ') };
  });
  return { ...menu, choices };
}

function plan(screen: ScreenView): DetectedPrompt | null {
  const found = findMenu(screen.lines);
  if (!found || findRowAbove(screen.lines, PLAN, found.firstRow) < 0) return null;
  const menu = unwrapLabels(screen.lines, found);
  // Leaving plan mode without running the plan changes nothing.
  const leave = menu.choices.find((c) => /without running the plan/i.test(c.label));
  const prompt = menuPrompt('plan', screen.lines, menu, {
    safeDefault: leave ? { type: 'choice', number: leave.number } : null,
  });
  return keyed(prompt, KEYS.plan, screen.lines);
}

/** ask_user's form: "Copilot needs information.", the message, a field ("Color:"), options without numbers. */
function form(screen: ScreenView): DetectedPrompt | null {
  const hint = findRowAbove(screen.lines, FORM_HINT);
  const top = hint < 0 ? -1 : findRowAbove(screen.lines, FORM_TOP, hint);
  if (top < 0) return null;
  const options: Array<{ label: string; marked: boolean; bullet?: string }> = [];
  let last = hint;
  while (last - 1 > top && !screen.lines[last - 1]!.trim()) last--;
  let first = last;
  while (first - 1 > top && FORM_OPTION.test(screen.lines[first - 1]!)) first--;
  for (let row = first; row < last; row++) {
    const match = FORM_OPTION.exec(screen.lines[row]!)!;
    options.push({ label: match[3]!, marked: match[1] === '❯', ...(match[2] ? { bullet: match[2] } : {}) });
  }
  if (options.length < 2) return null;
  const isBox = (o: (typeof options)[number]) => o.bullet !== undefined && !/^Other\b/.test(o.label);
  const choices: PromptChoice[] = options.map((o, i) =>
    isBox(o) ? { number: i + 1, label: o.label, checkbox: true } : { number: i + 1, label: o.label },
  );
  const asked = screen.lines
    .slice(top + 1, first)
    .map((l) => l.trim())
    .filter(Boolean);
  const detail = redactSecrets([...asked, ...choices.map((c) => `${c.number}. ${c.label}`)].join('\n'));
  const prompt: DetectedPrompt = {
    kind: 'question',
    confidence: 'high',
    excerpt: truncateExcerpt(redactSecrets(asked.join(' — '))),
    detail,
    choices,
    safeDefault: null,
    key: `question|${asked.join('|')}|${choices.map((c) => c.label).join('|')}`,
  };
  const highlighted = options.findIndex((o) => o.marked) + 1 || 1;
  if (!options.some(isBox)) return keyed(prompt, KEYS.form, screen.lines, { highlighted });
  const ticked = options.flatMap((o, i) => (isBox(o) && o.bullet === '✓' ? [i + 1] : []));
  return keyed(prompt, KEYS.formMultiSelect, screen.lines, { highlighted, ticked });
}

/** The ❯ input box between two rules, with the `? help` footer under it, and no dialog or form above. */
function isIdle(screen: ScreenView): boolean {
  const bottom = lastContentRow(screen.lines);
  const tail = screen.lines.slice(Math.max(0, bottom - 5), bottom + 1);
  const box = tail.findIndex((line) => /^❯(?:\s|$)/.test(line));
  if (box < 1 || !isRule(tail[box - 1]!) || !tail.slice(box + 1).some((line) => /\? help/.test(line)))
    return false;
  return !findMenu(screen.lines, 6) && findRowAbove(screen.lines, FORM_HINT) < 0;
}

/** The input box: ❯ and the message, down to the rule under it, then its footer. */
const INPUT_BOX: InputBoxShape = {
  marker: /^❯(?:\s|$)/,
  opens: isRule,
  closes: isRule,
  footerRows: 3,
  collapsedPaste: /^\[Paste #\d+/,
};

/** The agent's own dialogs, most specific first. */
function detect(screen: ScreenView): DetectedPrompt | null {
  return permission(screen) ?? trust(screen) ?? plan(screen) ?? form(screen);
}

export const copilotScreens: ScreenVocabulary = {
  detect,
  isIdle,
  holdsUnsent: unsentChecker(INPUT_BOX, detect),
  menuKeys: 'digit',
  // Esc twice stops the turn ("esc esc interrupt"); a SIGINT ends Copilot CLI itself.
  interruptKeys: ['\x1b', '\x1b'],
  // Two Esc read at once are one Alt+Esc, not twice Esc: keys go 150 ms apart (measured).
  keyGapMs: 150,
  fullScreen: true,
};
