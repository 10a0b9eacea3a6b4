import type { Clock } from '../core/clock.js';
import type { AgentSession } from './agent-session.js';
import { ConversationLog } from './conversation-log.js';

/** Ended sessions whose conversations stay readable (until serve stops), newest kept. */
export const ENDED_KEPT = 20;

/**
 * The conversations of the structured sessions this process runs, kept in memory from the moment the web
 * backend sees them: their events as they happen (tool cards and status are not in the store, which keeps
 * only what chats are sent), and what people sent them from the page. A terminal session has its screen
 * instead. Once a session ended its conversation stays, for the newest ENDED_KEPT.
 */
export class Conversations {
  private readonly logs = new Map<string, ConversationLog>();
  /** Ended sessions' ids, oldest first. */
  private readonly ended: string[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly endedKept = ENDED_KEPT,
  ) {}

  follow(session: AgentSession): void {
    if (session.terminal || this.logs.has(session.id)) return;
    const log = new ConversationLog(session.id, this.clock, session.usage);
    this.logs.set(session.id, log);
    session.on((event) => log.record(event));
    void session.exited.then((exit) => {
      log.record({ type: 'exit', exit });
      this.retire(session.id);
    });
  }

  get(sessionId: string): ConversationLog | undefined {
    return this.logs.get(sessionId);
  }

  private retire(sessionId: string): void {
    this.ended.push(sessionId);
    for (const old of this.ended.splice(0, Math.max(0, this.ended.length - this.endedKept)))
      this.logs.delete(old);
  }
}
