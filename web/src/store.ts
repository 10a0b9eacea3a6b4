import { api, ApiError } from './api.js';
import type { AppConfig, Prompt, Session } from './types.js';

/** What the views show, fetched from the API and refetched when /ws/events says a list changed. */

export type Topic = 'config' | 'sessions' | 'prompts' | 'status';

export interface Status {
  /** /ws/events is connected. */
  live: boolean;
  /** The server answered 401. */
  unauthorized: boolean;
  /** The last failed fetch, if the last one failed. */
  error: string | null;
}

type Listener = () => void;

class Store {
  config: AppConfig | null = null;
  sessions: Session[] = [];
  prompts: Prompt[] = [];
  status: Status = { live: false, unauthorized: false, error: null };
  /** Whether each list has been fetched at least once. */
  loaded = { config: false, sessions: false, prompts: false };

  private readonly listeners = new Map<Topic, Set<Listener>>();
  private readonly inFlight = new Map<Topic, Promise<void>>();
  private readonly again = new Set<Topic>();

  on(topic: Topic, listener: Listener): () => void {
    let set = this.listeners.get(topic);
    if (!set) this.listeners.set(topic, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  emit(topic: Topic): void {
    for (const listener of this.listeners.get(topic) ?? []) {
      try {
        listener();
      } catch (error) {
        console.error(error);
      }
    }
  }

  setStatus(patch: Partial<Status>): void {
    const next = { ...this.status, ...patch };
    if (JSON.stringify(next) === JSON.stringify(this.status)) return;
    this.status = next;
    this.emit('status');
  }

  refreshConfig(): Promise<void> {
    return this.refresh('config', async () => {
      this.config = await api.config();
      this.loaded.config = true;
    });
  }

  refreshSessions(): Promise<void> {
    return this.refresh('sessions', async () => {
      this.sessions = await api.sessions();
      this.loaded.sessions = true;
    });
  }

  refreshPrompts(): Promise<void> {
    return this.refresh('prompts', async () => {
      const prompts = await api.prompts();
      this.prompts = [...prompts].sort((a, b) => a.expiresAt - b.expiresAt);
      this.loaded.prompts = true;
    });
  }

  refreshAll(): Promise<void> {
    return Promise.all([this.refreshConfig(), this.refreshSessions(), this.refreshPrompts()]).then(() => {});
  }

  session(id: string): Session | undefined {
    return this.sessions.find((s) => s.id === id);
  }

  /** One fetch per topic at a time; a refresh asked for meanwhile runs once after it. */
  private refresh(topic: Exclude<Topic, 'status'>, load: () => Promise<void>): Promise<void> {
    const running = this.inFlight.get(topic);
    if (running) {
      this.again.add(topic);
      return running;
    }
    const run = (async () => {
      do {
        this.again.delete(topic);
        try {
          await load();
          this.setStatus({ error: null, unauthorized: false });
          this.emit(topic);
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          this.setStatus({ error: message, unauthorized: error instanceof ApiError && error.status === 401 });
        }
      } while (this.again.has(topic));
    })().finally(() => this.inFlight.delete(topic));
    this.inFlight.set(topic, run);
    return run;
  }
}

export const store = new Store();
