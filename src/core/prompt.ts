import { normalizeLineEnds, textProblem } from './answer-text.js';
import type { DialogState } from './dialog-keys.js';
import type { Confidence, PromptChoice, PromptKind } from './events.js';

/**
 * A reply, as any channel expresses it, before an agent turns it into keys or a protocol answer.
 * `allow_session` is "yes, and don't ask again this session" where the agent offers it.
 */
export type ReplyAction =
  /** `text`: words typed after the choice (the reason for a "No", the answer after "Type something."). */
  | { type: 'choice'; number: number; text?: string }
  /** Several boxes of a multi-select question, ticked together (the others left unticked). */
  | { type: 'choices'; numbers: number[] }
  | { type: 'yes' }
  | { type: 'no' }
  | { type: 'enter' }
  | { type: 'text'; text: string }
  | { type: 'default' }
  | { type: 'escape' }
  | { type: 'cancel' }
  /**
   * Words for a secret prompt (a password), as stored: sealed to the session's key (`box`), and once typed
   * only their length (`box` null). Never the text itself.
   */
  | { type: 'sealed'; box: string | null; length: number };

/** What a detector found on screen (or a hook/protocol reported): everything a person needs to decide. */
export interface DetectedPrompt {
  kind: PromptKind;
  confidence: Confidence;
  /** ANSI-free, redacted, at most 200 characters. */
  excerpt: string;
  /** The full command, diff or question, redacted (may be long). */
  detail: string;
  choices: PromptChoice[];
  /** Applied when the prompt expires; null = nothing is typed (the prompt is left to a person). */
  safeDefault: ReplyAction | null;
  /** The choice number meaning "allow for this session", when the agent offers one. */
  allowForSessionChoice?: number;
  /** Same key = same prompt still on screen: used to raise each prompt once. */
  key: string;
  /**
   * Whether words for it may span lines: true where they go in as one bracketed paste or through a protocol;
   * false for a program that reads a line at a time (each line would answer something else). Default true.
   */
  multiline?: boolean;
  /** It asks for a secret (a password, a token): the answer is never stored or shown, only its length. */
  secret?: boolean;
  /** An agent's own dialog read from its screen: the keys it takes, its highlight and ticks (terminal only). */
  dialog?: DialogState;
}

export const EXCERPT_MAX_CHARS = 200;

/** Default time each kind of prompt waits for a person, in ms (configurable). */
export const DEFAULT_PROMPT_TTL_MS: Record<PromptKind, number> = {
  permission: 120_000,
  plan: 600_000,
  question: 600_000,
  yes_no: 300_000,
  confirm_enter: 300_000,
  multiple_choice: 300_000,
  free_text: 600_000,
  unknown: 300_000,
};

export function truncateExcerpt(text: string, max = EXCERPT_MAX_CHARS): string {
  const flat = text
    .replace(/[ \t]+/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return flat.length <= max ? flat : flat.slice(0, max - 1) + '…';
}

/**
 * Parses what a person typed or tapped into a reply: `y`/`yes`, `n`/`no`, `enter`, a number, `default`,
 * `cancel`, `session` (allow for this session), or free text. Numbers are the agent's own, from 1.
 */
export function parseReply(
  raw: string,
  prompt: Pick<DetectedPrompt, 'kind' | 'choices' | 'allowForSessionChoice' | 'multiline'>,
): ReplyAction {
  const problem = textProblem(raw);
  if (problem) throw new ReplyError(problem);
  const text = normalizeLineEnds(raw);
  const value = text.trim();
  const lower = value.toLowerCase();
  const words = (action: ReplyAction): ReplyAction => {
    if (prompt.multiline === false && /\n/.test(value))
      throw new ReplyError('this prompt takes one line at a time: send your answer without line breaks');
    return action;
  };
  if (prompt.kind === 'free_text' && !['default', 'cancel'].includes(lower))
    return words({ type: 'text', text });
  const boxes = tickedBoxes(value, prompt.choices);
  if (boxes) return { type: 'choices', numbers: boxes };
  // A number picks a choice; a yes/no or press-Enter question has none, and a digit typed there is no answer.
  const answersNone =
    prompt.choices.length === 0 && (prompt.kind === 'yes_no' || prompt.kind === 'confirm_enter');
  if (/^\d+$/.test(value) && !answersNone) {
    const number = Number(value);
    if (prompt.choices.length > 0 && !prompt.choices.some((c) => c.number === number)) {
      throw new ReplyError(`no choice ${number}: choose ${prompt.choices.map((c) => c.number).join(', ')}`);
    }
    return { type: 'choice', number };
  }
  if (['y', 'yes', 'allow', 'approve'].includes(lower)) return yesAction(prompt);
  if (['n', 'no', 'deny', 'reject'].includes(lower)) return noAction(prompt);
  if (lower === 'session' || lower === 'allow_session') {
    const grant = prompt.allowForSessionChoice;
    if (!grant || (prompt.choices.length > 0 && !prompt.choices.some((c) => c.number === grant)))
      throw new ReplyError('this prompt has no "allow for this session" option');
    return { type: 'choice', number: grant };
  }
  if (lower === 'enter') return { type: 'enter' };
  if (lower === 'default') return { type: 'default' };
  if (lower === 'cancel') return { type: 'cancel' };
  if (lower === 'esc' || lower === 'escape') return { type: 'escape' };
  // Text is an answer only where the agent asks for text; typed into a menu it would do something else.
  const textChoice = textChoiceOf(prompt);
  if (textChoice !== null) return words({ type: 'choice', number: textChoice, text });
  if (prompt.choices.length > 0)
    throw new ReplyError(`answer with a choice: ${prompt.choices.map((c) => c.number).join(', ')}`);
  if (prompt.kind === 'yes_no') throw new ReplyError('answer yes or no');
  if (prompt.kind === 'confirm_enter') throw new ReplyError('answer enter');
  return words({ type: 'text', text });
}

/**
 * Boxes of a multi-select question named by a list ("1, 3", "1 3", "Cheese, Olives"), or null when the prompt
 * has no boxes or the words are not such a list. One box alone is a plain choice.
 */
function tickedBoxes(value: string, choices: readonly PromptChoice[]): number[] | null {
  const boxes = choices.filter((c) => c.checkbox);
  if (boxes.length === 0) return null;
  const parts = value.split(/\s*,\s*|\s+(?=\d)|\s*\n\s*/).filter(Boolean);
  if (parts.length < 2) return null;
  const numbers = parts.map((part) => {
    const lower = part.toLowerCase();
    return boxes.find((c) => String(c.number) === part || c.label.toLowerCase() === lower)?.number;
  });
  if (numbers.some((n) => n === undefined)) return null;
  return [...new Set(numbers as number[])].sort((a, b) => a - b);
}

/**
 * The choice that takes typed words, if any: "Type something." / "Other" on a question, and on a permission or
 * plan the choice that says no (the words then tell the agent why, or what to do instead).
 */
export function textChoiceOf(prompt: Pick<DetectedPrompt, 'kind' | 'choices'>): number | null {
  const typed = prompt.choices.find((c) => TYPED.test(c.label));
  if (typed) return typed.number;
  if (prompt.kind !== 'permission' && prompt.kind !== 'plan') return null;
  return prompt.choices.find((c) => NEGATIVE.test(c.label))?.number ?? null;
}

const NEGATIVE = /^(no|deny|reject|don't|do not)\b/i;
/** Choices that take words, as the agents label them (Claude, Codex, Gemini, Copilot questions and plans). */
const TYPED =
  /^(type something|other\b|something else|enter a custom value|none of the above|type your (?:feedback|answer)|tell \S+ what to change|suggest changes)/i;

/** On a menu, "yes" is the first choice; elsewhere it is a plain yes. */
function yesAction(prompt: Pick<DetectedPrompt, 'choices'>): ReplyAction {
  const first = prompt.choices[0];
  return first ? { type: 'choice', number: first.number } : { type: 'yes' };
}

/** On a menu, "no" is the choice that says no/deny/reject, else the last one. */
function noAction(prompt: Pick<DetectedPrompt, 'choices'>): ReplyAction {
  if (prompt.choices.length === 0) return { type: 'no' };
  const negative = prompt.choices.find((c) => NEGATIVE.test(c.label));
  const chosen = negative ?? prompt.choices[prompt.choices.length - 1]!;
  return { type: 'choice', number: chosen.number };
}

export class ReplyError extends Error {
  override name = 'ReplyError';
}

export function describeReply(action: ReplyAction, choices: readonly PromptChoice[] = []): string {
  switch (action.type) {
    case 'choice': {
      const label = choices.find((c) => c.number === action.number)?.label;
      const chosen = label ? `${action.number}. ${label}` : String(action.number);
      return action.text === undefined ? chosen : `${chosen}: ${quoted(action.text)}`;
    }
    case 'choices':
      return action.numbers
        .map((n) => {
          const label = choices.find((c) => c.number === n)?.label;
          return label ? `${n}. ${label}` : String(n);
        })
        .join(', ');
    case 'text':
      return quoted(action.text);
    case 'sealed':
      return secretSummary(action.length);
    default:
      return action.type;
  }
}

/** How a secret answer appears anywhere (audit, chat, inbox): its length only. */
export function secretSummary(length: number): string {
  return `[secret, ${length} characters]`;
}

function quoted(text: string): string {
  return JSON.stringify(text.length > 60 ? text.slice(0, 59) + '…' : text);
}

/** What an agent is told when a person says no: in their words when they gave some. */
export function denialMessage(decidedBy: string, words: string | undefined): string {
  return words
    ? `Denied by ${decidedBy}, who says: ${words}`
    : `Denied by ${decidedBy} through agent-bridge.`;
}
