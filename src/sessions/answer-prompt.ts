import type { IsAlive } from '../core/process-ref.js';
import { describeReply, parseReply, ReplyError, type ReplyAction } from '../core/prompt.js';
import { checkForwardedReply } from '../core/forwarded-reply.js';
import { OPEN_STATUSES } from '../core/prompt-state.js';
import { seal } from '../core/sealed-box.js';
import { isProcessAlive } from '../drivers/terminal/process-tree.js';
import type { PromptRecord } from '../store/prompt-store.js';
import type { SessionRecord } from '../store/session-store.js';
import type { Store } from '../store/store.js';
import { reapIfDead } from './session-liveness.js';

type AnswerStore = Pick<Store, 'db' | 'prompts' | 'sessions' | 'audit'> & { dir?: string };

export type AnswerOutcome =
  | { ok: true; record: PromptRecord; reply: ReplyAction; summary: string }
  | { ok: false; code: AnswerRefusal; reason: string; record?: PromptRecord };

export type AnswerRefusal =
  | 'not_found'
  | 'ambiguous'
  | 'bad_reply'
  | 'refused'
  | 'session_gone'
  /** The session runs in its host, but no agent-bridge controls it now to type the answer. */
  | 'unattended';

export interface AnswerRequest {
  /** Full id or a unique prefix. */
  promptRef: string;
  /**
   * The full id only (the web API): a prefix, or an empty ref (a prefix of every id), is no prompt. Prefixes
   * are the command line's convenience.
   */
  exact?: boolean;
  /** Required by remote channels (from their message), optional for the local CLI (it reads the store). */
  sessionId?: string;
  nonce?: string;
  /** Button data carries only the first characters of the session id and nonce. */
  sessionPrefix?: string;
  noncePrefix?: string;
  raw: string;
  /**
   * An answer already parsed by another machine (a hub, from its mirror of the prompt), in place of `raw`:
   * checked here against the prompt's own choices (checkForwardedReply), never taken on trust.
   */
  reply?: ReplyAction;
  /** e.g. `cli:alice`, `telegram:12345`. */
  decidedBy: string;
}

/**
 * Records a person's answer: to a session whose process is alive (pid and start time; a dead one is closed
 * here, by whoever notices first), parsed against the prompt's own choices (text only: no control bytes),
 * sealed when the prompt asks for a secret, then applied with the store's guarded UPDATE (right session,
 * unused nonce, not expired, still open) together with its REPLY_RECEIVED audit line, so the injection's line
 * always comes after it. Every outcome is audited. Injection is the owning session's job: it notices the
 * decision and types it, once, and only while the prompt is still shown.
 */
export function answerPrompt(
  store: AnswerStore,
  request: AnswerRequest,
  isAlive: IsAlive = isProcessAlive,
): AnswerOutcome {
  const exact = request.exact ? store.prompts.get(request.promptRef) : null;
  const matches = request.exact ? (exact ? [exact] : []) : store.prompts.findByPrefix(request.promptRef);
  if (matches.length === 0) {
    store.audit.record('REPLY_REJECTED', {
      prompt_ref: request.promptRef,
      decided_by: request.decidedBy,
      reason: 'no such prompt',
    });
    const reason = `no prompt ${request.promptRef}${request.exact ? ': give its full id, as it is listed' : ''}`;
    return { ok: false, code: 'not_found', reason };
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
  const session = store.sessions.get(record.sessionId);
  const unreachable = sessionRefusal(store, record, request, session, isAlive);
  if (unreachable) return unreachable;
  let reply: ReplyAction;
  try {
    reply = request.reply
      ? checkForwardedReply(request.reply, record)
      : replyFor(request.raw, record, session!);
  } catch (error) {
    if (!(error instanceof ReplyError)) throw error;
    return { ok: false, code: 'bad_reply', reason: error.message, record };
  }
  if (reply.type === 'cancel') return cancel(store, record, request);
  const summary = describeReply(reply, record.choices);
  const decided = store.db
    .transaction(() => {
      const result = store.prompts.decide({
        promptId: record.id,
        sessionId: request.sessionId ?? record.sessionId,
        nonce: request.nonce ?? record.nonce,
        reply,
        decidedBy: request.decidedBy,
      });
      if (result)
        store.audit.record('REPLY_RECEIVED', {
          session_id: record.sessionId,
          prompt_id: record.id,
          value: summary,
          decided_by: request.decidedBy,
        });
      return result;
    })
    .immediate();
  if (!decided) return refuseAsItStands(store, record, request);
  return { ok: true, record: decided, reply, summary };
}

/**
 * Why an answer cannot reach the session, if it cannot: the session is gone (a dead one is closed here, by
 * whoever notices first), or it runs but no agent-bridge controls it to type the answer.
 */
function sessionRefusal(
  store: AnswerStore,
  record: PromptRecord,
  request: AnswerRequest,
  session: SessionRecord | null,
  isAlive: IsAlive,
): AnswerOutcome | null {
  if (!session || session.status !== 'active' || reapIfDead(store, session, isAlive)) {
    const reason = goneReason(record, store.sessions.get(record.sessionId));
    return refuse(store, record, request, 'session_gone', reason);
  }
  if (store.sessions.controllerAlive(session, isAlive)) return null;
  const id = session.id.slice(0, 8);
  return refuse(
    store,
    record,
    request,
    'unattended',
    `session ${id} runs, but no agent-bridge controls it right now to type the answer (the one that did ended): agent-bridge attach ${id}, or start agent-bridge serve, then answer again; nothing was typed`,
  );
}

/** The answer as the prompt takes it: one of its choices, or text only; sealed when it is a secret. */
function replyFor(raw: string, record: PromptRecord, session: SessionRecord): ReplyAction {
  const reply = parseReply(raw, {
    kind: record.kind,
    choices: record.choices,
    allowForSessionChoice: record.allowForSessionChoice ?? undefined,
    multiline: record.multiline,
  });
  return sealIfSecret(reply, record, session);
}

/** Words for a secret prompt leave this process only sealed to the session's own key. */
function sealIfSecret(reply: ReplyAction, record: PromptRecord, session: SessionRecord): ReplyAction {
  if (!record.secret) return reply;
  if (reply.type !== 'text') return reply;
  const text = reply.text;
  if (!session.answerKey)
    throw new ReplyError(
      'this session cannot take a secret answer from elsewhere: type it in its own terminal',
    );
  return { type: 'sealed', box: seal(session.answerKey, text), length: [...text].length };
}

function goneReason(record: PromptRecord, session: SessionRecord | null): string {
  const id = record.sessionId.slice(0, 8);
  if (session?.status === 'crashed' && session.sessionHost)
    return `the session that asked (${id}) crashed: its session host (pid ${session.sessionHost.process.pid}) is gone; nothing was typed`;
  if (session?.status === 'crashed')
    return `the session that asked (${id}) crashed: its agent-bridge process (pid ${session.owner.pid}) is gone; nothing was typed`;
  return `the session that asked (${id}) is not running; nothing was typed`;
}

function cancel(store: AnswerStore, record: PromptRecord, request: AnswerRequest): AnswerOutcome {
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
function refuseAsItStands(store: AnswerStore, record: PromptRecord, request: AnswerRequest): AnswerOutcome {
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
  store: Pick<AnswerStore, 'audit'>,
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
