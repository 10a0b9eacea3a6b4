import type { PromptOutcome, PromptView } from '../channels/contract.js';
import { describeReply, textChoiceOf } from '../core/prompt.js';
import type { PromptRecord } from '../store/prompt-store.js';
import type { SessionRecord } from '../store/session-store.js';

/** A stored prompt as channels show it, with where it comes from. */
export function promptView(record: PromptRecord, session: SessionRecord | null): PromptView {
  return {
    promptId: record.id,
    sessionId: record.sessionId,
    nonce: record.nonce,
    kind: record.kind,
    confidence: record.confidence,
    excerpt: record.excerpt,
    detail: record.detail,
    choices: record.choices,
    allowForSessionChoice: record.allowForSessionChoice,
    textChoice: textChoiceOf(record),
    safeDefault: record.safeDefault ? describeReply(record.safeDefault, record.choices) : null,
    expiresAt: record.expiresAt,
    origin: {
      host: session?.host ?? '?',
      agent: session?.agent ?? '?',
      label: session?.label ?? '?',
      cwd: session?.cwd ?? '?',
    },
  };
}

export function promptOutcome(record: PromptRecord): PromptOutcome {
  const status = record.status === 'injected' ? 'resolved' : record.status;
  return {
    status: (['resolved', 'expired', 'canceled', 'failed'].includes(status)
      ? status
      : 'failed') as PromptOutcome['status'],
    decidedBy: record.decidedBy,
    answer: record.reply ? describeReply(record.reply, record.choices) : null,
    note: record.note,
  };
}
