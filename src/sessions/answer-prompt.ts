import { describeReply, parseReply, ReplyError, type ReplyAction } from '../core/prompt.js';
import { OPEN_STATUSES } from '../core/prompt-state.js';
import type { AuditLog } from '../store/audit/audit-log.js';
import type { PromptRecord, PromptStore } from '../store/prompt-store.js';
import type { SessionStore } from '../store/session-store.js';

export type AnswerOutcome =
  | { ok: true; record: PromptRecord; reply: ReplyAction; summary: string }
  | { ok: false; code: AnswerRefusal; reason: string; record?: PromptRecord };

export type AnswerRefusal = 'not_found' | 'ambiguous' | 'bad_reply' | 'refused' | 'session_gone';

export interface AnswerRequest {
  /** Full id or a unique prefix. */
  promptRef: string;
  /** Required by remote channels (from their message), optional for the local CLI (it reads the store). */
  sessionId?: string;
  nonce?: string;
  /** Button data carries only the first characters of the session id and nonce. */
  sessionPrefix?: string;
  noncePrefix?: string;
  raw: string;
  /** e.g. `cli:alice`, `telegram:12345`. */
  decidedBy: string;
}

/**
 * Records a person's answer: parsed against the prompt's own choices, then applied with the store's guarded
 * UPDATE (right session, unused nonce, not expired, still open). Every outcome is audited. Injection is the
 * owning session's job: it notices the decision and types it, once.
 */
export function answerPrompt(
  store: { prompts: PromptStore; sessions: SessionStore; audit: AuditLog },
  request: AnswerRequest,
): AnswerOutcome {
  const matches = store.prompts.findByPrefix(request.promptRef);
  if (matches.length === 0) {
    store.audit.record('REPLY_REJECTED', {
      prompt_ref: request.promptRef,
      decided_by: request.decidedBy,
      reason: 'no such prompt',
    });
    return { ok: false, code: 'not_found', reason: `no prompt ${request.promptRef}` };
  }
  if (matches.length > 1 && matches[0]!.id !== request.promptRef) {
    return {
      ok: false,
      code: 'ambiguous',
      reason: `${request.promptRef} matches several prompts: give more of the id`,
    };
  }
  const record = matches[0]!;
  if (
    request.sessionPrefix !== undefined &&
    !record.sessionId.replace(/-/g, '').startsWith(request.sessionPrefix)
  ) {
    return refuse(store, record, request, 'refused', 'the answer names another session');
  }
  if (request.noncePrefix !== undefined && !record.nonce.startsWith(request.noncePrefix)) {
    return refuse(store, record, request, 'refused', 'this button is not valid for the prompt');
  }
  let reply: ReplyAction;
  try {
    reply = parseReply(request.raw, {
      kind: record.kind,
      choices: record.choices,
      allowForSessionChoice: record.allowForSessionChoice ?? undefined,
    });
  } catch (error) {
    if (!(error instanceof ReplyError)) throw error;
    return { ok: false, code: 'bad_reply', reason: error.message, record };
  }
  const session = store.sessions.get(record.sessionId);
  if (session?.status !== 'active') {
    return refuse(
      store,
      record,
      request,
      'session_gone',
      `the session that asked (${record.sessionId.slice(0, 8)}) is not running`,
    );
  }
  if (reply.type === 'cancel') return cancel(store, record, request);
  const decided = store.prompts.decide({
    promptId: record.id,
    sessionId: request.sessionId ?? record.sessionId,
    nonce: request.nonce ?? record.nonce,
    reply,
    decidedBy: request.decidedBy,
  });
  if (!decided) return refuseAsItStands(store, record, request);
  const summary = describeReply(reply, record.choices);
  store.audit.record('REPLY_RECEIVED', {
    session_id: record.sessionId,
    prompt_id: record.id,
    value: summary,
    decided_by: request.decidedBy,
  });
  return { ok: true, record: decided, reply, summary };
}

function cancel(
  store: { prompts: PromptStore; audit: AuditLog },
  record: PromptRecord,
  request: AnswerRequest,
): AnswerOutcome {
  if (request.nonce !== undefined && request.nonce !== record.nonce) {
    return refuse(store, record, request, 'refused', 'this button is not valid for the prompt');
  }
  if (!store.prompts.close(record.id, 'canceled', request.decidedBy, 'cancelled by a person')) {
    return refuseAsItStands(store, record, request);
  }
  store.audit.record('PROMPT_CANCELED', {
    session_id: record.sessionId,
    prompt_id: record.id,
    decided_by: request.decidedBy,
  });
  return { ok: true, record, reply: { type: 'cancel' }, summary: 'cancel' };
}

/** The guard refused: say why, from the prompt as it stands now. */
function refuseAsItStands(
  store: { prompts: PromptStore; audit: AuditLog },
  record: PromptRecord,
  request: AnswerRequest,
): AnswerOutcome {
  return refuse(
    store,
    record,
    request,
    'refused',
    whyRefused(store.prompts.get(record.id) ?? record, request),
  );
}

function whyRefused(record: PromptRecord, request: AnswerRequest): string {
  if (request.sessionId !== undefined && request.sessionId !== record.sessionId)
    return 'the answer names another session';
  if (request.nonce !== undefined && request.nonce !== record.nonce)
    return 'this button is not valid for the prompt';
  if (record.nonceUsed || !OPEN_STATUSES.includes(record.status)) {
    return `already ${record.status.replace('_', ' ')}${record.decidedBy ? ` by ${record.decidedBy}` : ''}`;
  }
  return 'the prompt expired';
}

function refuse(
  store: { audit: AuditLog },
  record: PromptRecord,
  request: AnswerRequest,
  code: AnswerRefusal,
  reason: string,
): AnswerOutcome {
  store.audit.record('REPLY_REJECTED', {
    session_id: record.sessionId,
    prompt_id: record.id,
    decided_by: request.decidedBy,
    reason,
  });
  return { ok: false, code, reason, record };
}
