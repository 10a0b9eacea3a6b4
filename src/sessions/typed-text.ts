import { textProblem } from '../core/answer-text.js';
import { textChoiceOf, type DetectedPrompt } from '../core/prompt.js';
import type { PromptRecord } from '../store/prompt-store.js';
import type { Store } from '../store/store.js';
import { KIND_TITLES } from '../channels/view-types.js';
import { answerPrompt } from './answer-prompt.js';

/** What became of text a person sent to a session (from a chat, the inbox, serve's terminal). */
export type TextOutcome =
  /** Typed into the agent as soon as no prompt is shown. */
  | { type: 'queued' }
  /** A prompt that takes words was shown: the text answered it (said back to the sender). */
  | { type: 'answered'; prompt: PromptRecord; summary: string }
  /** A prompt that does not take words was shown: the text waits until it is resolved. */
  | { type: 'held'; prompt: PromptRecord }
  /** Not text (control characters), or the answer was refused: nothing typed. */
  | { type: 'refused'; reason: string };

/** Words are an answer to it: free text, a question's "Type something.", a "No" that takes a reason. */
export function takesWords(prompt: Pick<DetectedPrompt, 'kind' | 'choices'>): boolean {
  return prompt.kind === 'free_text' || prompt.kind === 'unknown' || textChoiceOf(prompt) !== null;
}

/**
 * Text for a session. While one of its prompts is open, the text is never typed into it (its Enter would pick
 * whatever option is highlighted): where the prompt takes words, the text is its answer in words (a denial's
 * reason, "Type something."); elsewhere it is held in the store until the prompt is resolved. Otherwise it is
 * queued for the session to type. Every outcome is audited without the text itself.
 */
export function sendTextToSession(
  store: Pick<Store, 'db' | 'prompts' | 'sessions' | 'channels' | 'audit'>,
  sessionId: string,
  text: string,
  sentBy: string,
): TextOutcome {
  const problem = textProblem(text);
  if (problem) {
    store.audit.record('REPLY_REJECTED', { session_id: sessionId, decided_by: sentBy, reason: problem });
    return { type: 'refused', reason: problem };
  }
  const open = store.prompts.open(sessionId)[0];
  if (open && takesWords(open)) {
    const outcome = answerPrompt(store, { promptRef: open.id, raw: text, decidedBy: sentBy });
    return outcome.ok
      ? { type: 'answered', prompt: open, summary: outcome.summary }
      : { type: 'refused', reason: outcome.reason };
  }
  store.channels.addInput(sessionId, text, sentBy);
  if (!open) return { type: 'queued' };
  store.audit.record('TEXT_HELD', {
    session_id: sessionId,
    prompt_id: open.id,
    sent_by: sentBy,
    chars: [...text].length,
  });
  return { type: 'held', prompt: open };
}

/** What to tell the sender, or null when the text simply goes to the agent. */
export function textOutcomeNotice(outcome: TextOutcome): string | null {
  switch (outcome.type) {
    case 'queued':
      return null;
    case 'answered':
      return `✍️ Your message answered the waiting ${title(outcome.prompt)} (${outcome.prompt.id.slice(0, 8)}): ${outcome.summary}`;
    case 'held':
      return `⏸ A ${title(outcome.prompt)} is waiting (${outcome.prompt.id.slice(0, 8)}): your message was not typed into it, and will be once it is answered. Answer it with its buttons, or reply to it.`;
    case 'refused':
      return `⚠️ Not typed: ${outcome.reason}`;
  }
}

function title(prompt: PromptRecord): string {
  return prompt.kind === 'unknown' ? 'possible prompt' : `${KIND_TITLES[prompt.kind].toLowerCase()} prompt`;
}
