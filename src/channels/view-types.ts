import type { Confidence, PromptChoice, PromptKind } from '../core/events.js';
import { promptHeadline } from '../core/prompt-headline.js';

/** What channels show of a prompt: plain data, shared with the browser app (no Node types here). */

/** Everything a person needs to decide a prompt, and where it comes from. */
export interface PromptView {
  promptId: string;
  sessionId: string;
  nonce: string;
  kind: PromptKind;
  confidence: Confidence;
  excerpt: string;
  detail: string;
  choices: PromptChoice[];
  allowForSessionChoice: number | null;
  /** The choice that takes typed words ("Other…": a reason for a No, an answer of one's own), if any. */
  textChoice: number | null;
  /** What applies on expiry, for people ("No", "Enter"); null when nothing is typed. */
  safeDefault: string | null;
  expiresAt: number;
  origin: { host: string; agent: string; label: string; cwd: string };
}

export interface PromptOutcome {
  status: 'resolved' | 'expired' | 'canceled' | 'failed';
  /** Who answered: `telegram:123`, `terminal:local`, `auto:timeout`. */
  decidedBy: string | null;
  answer: string | null;
  note: string | null;
}

/** How each kind of prompt is titled for people, in every channel (chat messages, the web inbox). */
export const KIND_TITLES: Record<PromptKind, string> = {
  permission: 'Permission',
  question: 'Question',
  plan: 'Plan approval',
  yes_no: 'Yes or no',
  confirm_enter: 'Press Enter',
  multiple_choice: 'Choose',
  free_text: 'Answer needed',
  unknown: 'Possibly waiting for you',
};

/** ✅ for an answer that lets the agent go on, ❌ for one that says no (deny, reject). */
export function answerIcon(answer: string | null): string {
  return answer && /^(\d+\. )?(no|deny|reject)\b/i.test(answer) ? '❌' : '✅';
}

/** The longest subject line a chat message of a prompt gets. */
const SUBJECT_MAX = 200;

/**
 * A chat message's subject line: what is asked, in one line, above the full text (a phone's notification shows
 * a message's first lines, where a shell's full text starts with the output above its question). Null when
 * the full text says just that.
 */
export function promptSubject(prompt: Pick<PromptView, 'excerpt' | 'detail'>): string | null {
  const subject = promptHeadline(prompt.excerpt, SUBJECT_MAX);
  const detail = prompt.detail.replace(/\s+/g, ' ').trim();
  return subject && subject !== detail ? subject : null;
}
