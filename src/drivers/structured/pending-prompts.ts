import type { AgentEvent, PromptChoice, PromptKind } from '../../core/events.js';
import { truncateExcerpt, type DetectedPrompt, type ReplyAction } from '../../core/prompt.js';
import { redactSecrets } from '../../core/redact.js';
import { cleanText } from './clean-text.js';

/** Sends a person's decision back to the agent in its protocol; returns what was sent, for the audit trail. */
export type Respond = (action: ReplyAction, decidedBy: string) => string | Promise<string>;

/** The agent asked something that is no longer pending (answered, withdrawn, or the agent moved on). */
export class PromptNotAsked extends Error {
  override name = 'PromptNotAsked';
  constructor() {
    super('the agent no longer asks this (answered already, or the turn ended); nothing was sent');
  }
}

/**
 * The questions a structured agent is waiting on, by key: each is raised once as a `prompt` event and answered
 * once through its own protocol reply; a question the agent stops asking (a cancelled turn) is `prompt_gone`.
 */
export class PendingPrompts {
  private readonly pending = new Map<
    string,
    { prompt: DetectedPrompt; respond: Respond; withdrawn?: () => void }
  >();

  constructor(private readonly emit: (event: AgentEvent) => void) {}

  get size(): number {
    return this.pending.size;
  }

  raise(prompt: DetectedPrompt, respond: Respond, withdrawn?: () => void): void {
    if (this.pending.has(prompt.key)) return;
    this.pending.set(prompt.key, { prompt, respond, ...(withdrawn ? { withdrawn } : {}) });
    this.emit({ type: 'prompt', prompt });
  }

  /**
   * Raises the prompt and resolves with the person's decision (the protocol reply is the caller's); rejects
   * with PromptNotAsked when it is withdrawn unanswered.
   */
  ask(prompt: DetectedPrompt): Promise<{ action: ReplyAction; decidedBy: string }> {
    return new Promise((resolve, reject) =>
      this.raise(
        prompt,
        (action, decidedBy) => {
          resolve({ action, decidedBy });
          return describeAction(action, prompt.choices);
        },
        () => reject(new PromptNotAsked()),
      ),
    );
  }

  async answer(key: string, action: ReplyAction, decidedBy: string): Promise<string> {
    const entry = this.pending.get(key);
    if (!entry) throw new PromptNotAsked();
    const chosen = action.type === 'default' ? entry.prompt.safeDefault : action;
    if (!chosen) throw new Error('this prompt has no safe default to apply');
    this.pending.delete(key);
    return entry.respond(chosen, decidedBy);
  }

  /**
   * We stop waiting on it (the turn is being stopped): gone for every channel, and its `withdrawn` tells the
   * agent so where the protocol wants an answer anyway. `agentCancelled`: the agent took the question back
   * itself, so nothing is sent.
   */
  withdraw(key: string, agentCancelled = false): void {
    const entry = this.pending.get(key);
    if (!entry) return;
    this.pending.delete(key);
    this.emit({ type: 'prompt_gone', key });
    if (!agentCancelled) entry.withdrawn?.();
  }

  withdrawAll(): void {
    for (const key of [...this.pending.keys()]) this.withdraw(key);
  }
}

export interface ExactPromptInit {
  kind: PromptKind;
  /** One line for people: the tool and what it would do. */
  summary: string;
  /** The full command, diff, question or plan. */
  detail: string;
  choices: PromptChoice[];
  safeDefault: ReplyAction | null;
  allowForSessionChoice?: number;
  key: string;
}

/** A prompt the agent's own protocol reported: exact, cleaned and redacted, words allowed on several lines. */
export function exactPrompt(init: ExactPromptInit): DetectedPrompt {
  return {
    kind: init.kind,
    confidence: 'exact',
    excerpt: truncateExcerpt(redactSecrets(cleanText(init.summary))),
    detail: redactSecrets(cleanText(init.detail)),
    choices: init.choices.map((c) => ({
      number: c.number,
      label: cleanText(c.label),
      ...(c.description ? { description: cleanText(c.description) } : {}),
    })),
    safeDefault: init.safeDefault,
    ...(init.allowForSessionChoice ? { allowForSessionChoice: init.allowForSessionChoice } : {}),
    key: init.key,
    multiline: true,
  };
}

/** The chosen option in the agent's own words, for the audit trail. */
export function describeAction(action: ReplyAction, choices: readonly PromptChoice[]): string {
  if (action.type === 'choice') {
    const label = choices.find((c) => c.number === action.number)?.label ?? String(action.number);
    return action.text === undefined ? label : `${label}: ${JSON.stringify(action.text)}`;
  }
  if (action.type === 'text') return JSON.stringify(action.text);
  return action.type;
}

/** Words that came with a "No": the reason the agent is told. */
export function wordsOf(action: ReplyAction): string | undefined {
  if (action.type === 'choice' || action.type === 'text') return action.text?.trim() || undefined;
  return undefined;
}
