import type { AgentUsage } from '../core/events.js';
import type { Store } from '../store/store.js';

/**
 * What the agent used (tokens, context, limits, cost), as its status line or protocol last said: kept in the
 * store when it changes, for the footer under the agent's messages in chat and `/status`.
 */
export class SessionUsage {
  private latest: AgentUsage | null = null;

  constructor(
    private readonly store: Store,
    private readonly sessionId: string,
  ) {}

  get current(): AgentUsage | null {
    return this.latest;
  }

  record(usage: AgentUsage): void {
    const changed = JSON.stringify(usage) !== JSON.stringify(this.latest);
    this.latest = usage;
    if (changed) this.store.sessions.setUsage(this.sessionId, usage);
  }

  /** The context's use at the answer about to be posted, once the status line told the window's size. */
  contextAt(tokens: number): void {
    const window = this.latest?.contextWindow;
    if (!window) return;
    this.record({ ...this.latest, contextPercent: Math.min(100, Math.round((tokens / window) * 100)) });
  }
}
