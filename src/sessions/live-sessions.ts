import type { AgentSession } from './agent-session.js';

/**
 * The agent sessions this process runs (or controls, in their session hosts), by id: what a browser can attach
 * a live terminal to. One leaves when its agent ends or it is let go.
 */
export class LiveSessions {
  private readonly sessions = new Map<string, AgentSession>();
  private readonly listeners: Array<() => void> = [];

  add(session: AgentSession): void {
    this.sessions.set(session.id, session);
    this.changed();
    void session.gone.then(() => {
      this.sessions.delete(session.id);
      this.changed();
    });
  }

  get(id: string): AgentSession | undefined {
    return this.sessions.get(id);
  }

  all(): AgentSession[] {
    return [...this.sessions.values()];
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
