import { createHash } from 'node:crypto';

/** The audit events of seed 004 §10.4, plus what agent-bridge adds. */
export type AuditEventName =
  | 'SESSION_START'
  | 'SESSION_END'
  | 'PROMPT_DETECTED'
  | 'PROMPT_ROUTED'
  | 'REPLY_RECEIVED'
  | 'REPLY_INJECTED'
  | 'REPLY_REJECTED'
  | 'PROMPT_EXPIRED'
  | 'PROMPT_CANCELED'
  | 'PROMPT_RESOLVED_LOCALLY'
  | 'PROMPT_FAILED'
  | 'UNAUTHORIZED'
  | 'HOOK_RECEIVED'
  | 'ATTACHMENT_REFUSED'
  | 'UPLOAD_REFUSED'
  | 'THREAD_SESSION'
  | 'WORKTREE'
  /** Text from a chat or the inbox typed into a session: who, where, how long; never the text. */
  | 'TEXT_TYPED'
  /** Text taken to be typed that could not be (the agent ended first): who, how long, why; never the text. */
  | 'TEXT_NOT_TYPED'
  /** Text sent while a prompt was shown, held until the prompt is resolved. */
  | 'TEXT_HELD'
  /** The store or the disk failed; the session went on. */
  | 'STORAGE_FAILED'
  /** An unfinished last line of the log (a crash or a full disk mid-write) was moved to a file of its own. */
  | 'AUDIT_LINE_SET_ASIDE'
  /** A writer found the log shorter than the chain's head in the database: it was cut or deleted. */
  | 'AUDIT_GAP'
  /** Something from the cluster's bus was refused: malformed, or about a session or prompt not the sender's. */
  | 'CLUSTER_REFUSED'
  /** Another agent-bridge process took a running session over (its session host outlived the last one). */
  | 'SESSION_TAKEN_OVER'
  /** The session's controller let it go: it runs on in its session host. */
  | 'SESSION_DETACHED';

export interface AuditEntry {
  seq: number;
  ts: string;
  event: AuditEventName;
  prev_hash: string;
  hash: string;
  [field: string]: unknown;
}

export const GENESIS = 'genesis';

/** SHA-256 of the entry's JSON without its own `hash` field, keys in the order written. */
export function hashEntry(entry: Omit<AuditEntry, 'hash'> & { hash?: string }): string {
  const { hash: _ignored, ...rest } = entry;
  return 'sha256:' + createHash('sha256').update(JSON.stringify(rest)).digest('hex');
}
