import type { Channel, ChatTarget, PanelButton } from '../../channels/contract.js';
import type { Clock, TimerHandle } from '../../core/clock.js';
import type { Store } from '../../store/store.js';

/** Refreshes wait this long for more activity, so a burst of events edits each message once. */
const REFRESH_DELAY_MS = 1_000;
const BUTTON = /^panel:(start|stop):(.+)$/;

export interface PanelProject {
  name: string;
  agent: string;
  state: 'stopped' | 'starting' | 'running';
  waiting: number;
  worktrees: Array<{
    thread: string;
    branch: string | null;
    state: string;
    changes: number;
    exists: boolean;
  }>;
}

export interface ControlPanelOptions {
  channel: Channel;
  target: ChatTarget;
  store: Store;
  clock: Clock;
  projects: () => Promise<PanelProject[]>;
  log: (line: string) => void;
}

/**
 * Seed 001's control panel: in a general channel, one message per project with its state, waiting prompts
 * and worktrees, and Start / Stop buttons. The messages are edited in place (their ids are kept in the
 * store, so a restart edits rather than posts again), after any activity.
 */
export class ControlPanel {
  private timer: TimerHandle | null = null;
  private refreshing: Promise<void> = Promise.resolve();

  constructor(private readonly options: ControlPanelOptions) {}

  /** A button of the panel: what it asks for; null for anything else. */
  static parseButton(data: string): { action: 'start' | 'stop'; repo: string } | null {
    const match = BUTTON.exec(data);
    return match ? { action: match[1] as 'start' | 'stop', repo: match[2]! } : null;
  }

  /** Soon shows the current state (several calls in a row refresh once). */
  refresh(): void {
    if (this.timer) return;
    this.timer = this.options.clock.after(REFRESH_DELAY_MS, () => {
      this.timer = null;
      void this.refreshNow();
    });
  }

  refreshNow(): Promise<void> {
    this.refreshing = this.refreshing
      .then(() => this.render())
      .catch((error: unknown) => this.options.log(`control panel: ${(error as Error).message}`));
    return this.refreshing;
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  private async render(): Promise<void> {
    const { channel, target, store } = this.options;
    if (!channel.sendPanel) return;
    for (const project of await this.options.projects()) {
      const key = `panel:${target.chatId}:${project.name}`;
      const known = store.channels.getState(channel.name, key);
      const ref = await channel.sendPanel(
        target,
        panelText(project),
        [panelButtons(project)],
        known ? { ...target, messageId: known } : undefined,
      );
      if (ref.messageId !== known) store.channels.setState(channel.name, key, ref.messageId);
    }
  }
}

export function panelText(project: PanelProject): string {
  const icon = project.state === 'running' ? '🟢' : project.state === 'starting' ? '🟡' : '⚪';
  const lines = [`${icon} **${project.name}** · ${project.agent} · ${project.state}`];
  if (project.waiting > 0) lines.push(`🔔 ${project.waiting} prompt(s) waiting`);
  for (const tree of project.worktrees) {
    const changes = !tree.exists ? 'missing' : tree.changes > 0 ? `${tree.changes} change(s)` : 'clean';
    lines.push(`🌿 thread ${tree.thread} · ${tree.branch ?? '?'} · ${tree.state} · ${changes}`);
  }
  return lines.join('\n');
}

function panelButtons(project: PanelProject): PanelButton[] {
  return project.state === 'stopped'
    ? [{ label: '▶ Start', data: `panel:start:${project.name}`, style: 'success' }]
    : [{ label: '🛑 Stop', data: `panel:stop:${project.name}`, style: 'danger' }];
}
