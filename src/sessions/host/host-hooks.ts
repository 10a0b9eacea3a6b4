import type { HostFrame } from './host-wire.js';

/** Hook events queued while no one controls the session: the newest this many are kept. */
const MAX_QUEUED = 200;
/** The one hook event that waits for a person (Claude Code's permission request): it is held, not queued. */
const WAITS_FOR_A_PERSON = 'PermissionRequest';

/** Where a hook post's answer goes: the HTTP response the agent's hook client waits on. */
export interface HookResponder {
  answer(status: number, body: string): void;
  /** The hook client went away (Claude moved on: answered in its own dialog). */
  onGone(listener: () => void): void;
}

/** Prompts answered through hooks, remembered by id. */
const MAX_HOOK_ANSWERS = 256;

interface Pending {
  id: number;
  event: string;
  body: string;
  responder: HookResponder;
  /** Sent to the controller there is now (a new controller gets it again). */
  sent: boolean;
}

/**
 * Claude Code's hooks reach the session host (whose socket outlives any agent-bridge process), which relays
 * them to the session's controller and its answers back: a serve restart loses neither a permission request
 * nor what the agent said meanwhile. With no controller, a permission request is held until one comes (Claude
 * shows its own dialog meanwhile, answerable at any attached terminal), and every other event is answered at
 * once and kept (the newest 200) for the next controller.
 */
export class HookRelay {
  private readonly pending = new Map<number, Pending>();
  private readonly answeredPrompts: string[] = [];
  private queued: Array<{ event: string; body: string }> = [];
  private nextId = 1;
  private send: ((frame: HostFrame) => void) | null = null;

  /** A hook post, its token already checked. */
  post(event: string, body: string, responder: HookResponder): void {
    if (!this.send && event !== WAITS_FOR_A_PERSON) {
      this.queued.push({ event, body });
      if (this.queued.length > MAX_QUEUED) this.queued.shift();
      return responder.answer(204, '');
    }
    const entry: Pending = { id: this.nextId++, event, body, responder, sent: false };
    this.pending.set(entry.id, entry);
    responder.onGone(() => {
      if (!this.pending.delete(entry.id)) return;
      if (entry.sent) this.send?.({ type: 'hookGone', id: entry.id });
    });
    if (this.send) this.forward(entry);
  }

  /**
   * The controller's answer to a relayed post; `promptId`: the prompt it answers, remembered (a later
   * controller asks whether its answer went out: answered()).
   */
  reply(id: number, status: number, body: string, promptId?: string): void {
    if (promptId !== undefined) {
      this.answeredPrompts.push(promptId);
      if (this.answeredPrompts.length > MAX_HOOK_ANSWERS) this.answeredPrompts.shift();
    }
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    entry.responder.answer(status, body);
  }

  /** Whether a prompt was answered through its hook. */
  answered(promptId: string): boolean {
    return this.answeredPrompts.includes(promptId);
  }

  /** A new controller: it gets what was queued (late: only for the record) and every post still waiting. */
  controllerJoined(send: (frame: HostFrame) => void): void {
    this.send = send;
    const late = this.queued;
    this.queued = [];
    let id = this.nextId;
    for (const { event, body } of late) send({ type: 'hook', id: id++, event, body, late: true });
    this.nextId = id;
    for (const entry of this.pending.values()) this.forward(entry);
  }

  /** The controller left: a waiting permission request stays for the next one; other posts are let go. */
  controllerLeft(): void {
    this.send = null;
    for (const entry of [...this.pending.values()]) {
      entry.sent = false;
      if (entry.event === WAITS_FOR_A_PERSON) continue;
      this.pending.delete(entry.id);
      entry.responder.answer(204, '');
    }
  }

  /** The agent ended: nothing waits any more. */
  close(): void {
    for (const entry of this.pending.values()) entry.responder.answer(204, '');
    this.pending.clear();
    this.queued = [];
  }

  private forward(entry: Pending): void {
    entry.sent = true;
    this.send?.({ type: 'hook', id: entry.id, event: entry.event, body: entry.body, late: false });
  }
}
