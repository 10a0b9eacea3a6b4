import type { DialogKeys } from '../../core/dialog-keys.js';
import type { PromptChoice } from '../../core/events.js';
import type { DetectedPrompt } from '../../core/prompt.js';
import { chooseNo, detectQuestionMenu, menuPrompt } from '../../core/prompt-patterns.js';
import type { ScreenVocabulary, ScreenView } from '../../core/screen-vocabulary.js';
import { findMenu, findRowAbove, isBlank, lastContentRow, type Menu } from '../../core/screen-text.js';
import { keyed } from '../dialog.js';
import { unsentChecker, type InputBoxShape } from '../input-box.js';

/** Codex's dialogs (agent-facts 22, test/golden/prompts/codex): a question line, then a › menu. */
const APPROVAL =
  /Would you like to (?:run the following command|make the following edits|apply|allow|grant)\b.*\?/i;
const TRUST = /trust (?:this folder|the contents of this directory)/i;
const PLAN = /Implement this plan\?/;
const QUESTION = /^\s*Question \d+\/\d+/;

/**
 * The keys each dialog takes (measured, test/golden/live.test.ts). Codex also takes letters on approvals
 * (y, p, a, n); digits work everywhere, so agent-bridge types digits.
 */
const KEYS = {
  // "No, and tell Codex what to do differently" ends the turn; the words go in as the next message.
  approval: { pick: 'digit', words: 'next-message', escape: 'denies' },
  // A digit only highlights here: the choice needs Enter.
  trust: { pick: 'arrows', escape: 'cancels' },
  // "None of the above": ↑/↓ to it, Tab opens its notes, the words, Enter.
  question: { pick: 'digit', words: 'tab', escape: 'aborts-turn' },
  plan: { pick: 'digit', escape: 'cancels' },
} satisfies Record<string, DialogKeys>;

/** Codex writes an option's description on its own line, after two spaces: `1. Red  The color red`. */
function splitDescriptions(menu: Menu): Menu {
  const choices: PromptChoice[] = menu.choices.map((choice) => {
    const [label, ...rest] = choice.label.split(/\s{2,}/);
    const description = [rest.join(' '), choice.description].filter(Boolean).join(' ');
    return description
      ? { number: choice.number, label: label!, description }
      : { number: choice.number, label: label! };
  });
  return { ...menu, choices };
}

function approval(screen: ScreenView): DetectedPrompt | null {
  const prompt = detectQuestionMenu(screen, {
    kind: 'permission',
    question: APPROVAL,
    contextStart: /^\s*[•›]\s/,
    safeDefault: chooseNo,
    allowForSession: /don't ask again|for this session|always/i,
  });
  return keyed(prompt, KEYS.approval, screen.lines);
}

function trust(screen: ScreenView): DetectedPrompt | null {
  return keyed(detectQuestionMenu(screen, { kind: 'permission', question: TRUST }), KEYS.trust, screen.lines);
}

/** request_user_input (Plan mode): "Question 1/2", the question, options with their descriptions. */
function question(screen: ScreenView): DetectedPrompt | null {
  const found = findMenu(screen.lines);
  if (!found) return null;
  const header = findRowAbove(screen.lines, QUESTION, found.firstRow);
  if (header < 0 || found.firstRow - header > 6) return null;
  const menu = splitDescriptions(found);
  return keyed(menuPrompt('question', screen.lines, { ...menu }), KEYS.question, screen.lines);
}

function plan(screen: ScreenView): DetectedPrompt | null {
  const found = findMenu(screen.lines);
  if (!found || findRowAbove(screen.lines, PLAN, found.firstRow) < found.firstRow - 3) return null;
  const menu = splitDescriptions(found);
  // Staying in Plan mode changes nothing.
  const stay = menu.choices.find((c) => /^No\b/.test(c.label));
  const prompt = menuPrompt('plan', screen.lines, menu, {
    safeDefault: stay ? { type: 'choice', number: stay.number } : null,
  });
  return keyed(prompt, KEYS.plan, screen.lines);
}

/** The composer: › and the message, down to a blank row, then its footer (a long message scrolls in it). */
const INPUT_BOX: InputBoxShape = {
  marker: /^›\s/,
  opens: isBlank,
  closes: isBlank,
  mayRunToBottom: true,
  footerRows: 3,
  placeholder: /^(?:Ask Codex to do anything|Ask a follow-up question)$/,
};

/** The agent's own dialogs, most specific first. */
function detect(screen: ScreenView): DetectedPrompt | null {
  return approval(screen) ?? trust(screen) ?? question(screen) ?? plan(screen);
}

export const codexScreens: ScreenVocabulary = {
  detect,
  isIdle: (screen) => {
    const bottom = lastContentRow(screen.lines);
    const tail = screen.lines.slice(Math.max(0, bottom - 4), bottom + 1).join('\n');
    // Its composer stays while it works, a few rows under "Working (… • esc to interrupt)".
    const above = screen.lines.slice(Math.max(0, bottom - 9), bottom + 1).join('\n');
    return /\? for shortcuts/.test(tail) && /^›\s/m.test(tail) && !/esc to interrupt/.test(above);
  },
  holdsUnsent: unsentChecker(INPUT_BOX, detect),
  menuKeys: 'digit',
  // Esc stops a turn ("esc to interrupt"); a SIGINT ends Codex itself.
  interruptKeys: ['\x1b'],
  fullScreen: true,
};
