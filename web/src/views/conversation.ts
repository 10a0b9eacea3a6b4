import { wsUrl } from '../api.js';
import { button, h, reconcile, replace, replaceIfChanged } from '../dom.js';
import { href, sessionRoute } from '../router.js';
import { ReconnectCountdown } from '../reconnect-countdown.js';
import { ReconnectingSocket } from '../socket.js';
import { store } from '../store.js';
import type {
  AgentUsage,
  ConversationEntry,
  ConversationFrame,
  ConversationState,
  Session,
} from '../types.js';
import { stateBadge } from './common.js';
import { Composer } from './composer.js';
import { entryElement } from './conversation-entries.js';
import { promptCard } from './prompt-card.js';
import { renameSession, sessionActionButtons } from './session-actions.js';

/**
 * #/session/<id>/conversation: a structured session (no terminal) as a conversation: what the agent said, its
 * tool cards, diffs and plans as they happen, its waiting prompts with the inbox's buttons, a box to send it
 * a message, and its model and context use. History and updates come over /ws/conversation/<id>; while that
 * socket is down the page counts down to the next try and offers to reconnect now.
 */

/** The close code for a session with no conversation here. */
const NO_CONVERSATION = 4404;
/** Entries kept on the page (the server keeps as many): older ones leave the top. */
const MAX_ENTRIES = 500;
/** How close to the bottom still counts as reading the newest (then new entries scroll into view). */
const AT_BOTTOM_PX = 48;

export function conversationView(root: HTMLElement, id: string): () => void {
  const view = new ConversationView(root, id);
  return () => view.dispose();
}

class ConversationView {
  private readonly title = h('h1', {
    class: 'session-title',
    id: 'conversation-h1',
    'data-testid': 'session-title',
  });
  private readonly state = h('span');
  private readonly link = h('span', { class: 'link-status', 'data-testid': 'link-status', role: 'status' });
  /** "reconnecting in 4 s…" and "Reconnect now", while a reconnect is scheduled. */
  private readonly countdown = new ReconnectCountdown(
    (text) => this.setLink(text),
    () => this.socket.reconnectNow(),
  );
  private readonly actions = h('div', { class: 'session-actions' });
  private readonly scroller = h('div', { class: 'conversation-scroll', 'data-testid': 'conversation' });
  private readonly log = h('div', {
    class: 'conversation-log',
    role: 'log',
    'aria-label': 'Conversation',
    'data-testid': 'conversation-log',
  });
  private readonly empty = h('p', { class: 'note', 'data-testid': 'conversation-empty' }, ['Loading…']);
  private readonly prompts = h('div', {
    class: 'conversation-prompts',
    'data-testid': 'conversation-prompts',
  });
  private readonly footer = h('p', { class: 'conversation-footer', 'data-testid': 'conversation-footer' });
  private readonly composer: Composer;
  private readonly socket: ReconnectingSocket;
  private readonly offs: Array<() => void>;
  private known: Session | undefined;
  private agentState: ConversationState = 'idle';
  private usage: AgentUsage | null = null;

  constructor(
    private readonly root: HTMLElement,
    private readonly id: string,
  ) {
    this.known = store.session(id);
    this.composer = new Composer(id);
    replace(this.scroller, [
      h('div', { class: 'conversation-column' }, [this.empty, this.log, this.prompts]),
    ]);
    replace(root, [this.layout()]);
    root.classList.add('fill');
    this.socket = new ReconnectingSocket(wsUrl(`/ws/conversation/${encodeURIComponent(id)}`), {
      onOpen: () => {
        this.countdown.stop();
        this.setLink('live');
      },
      onMessage: (event) => this.onFrame(event),
      onDown: ({ code, retryInMs }) => this.onDown(code, retryInMs),
      shouldReconnect: (code) => code !== NO_CONVERSATION,
    });
    this.offs = [store.on('sessions', () => this.render()), store.on('prompts', () => this.renderPrompts())];
    this.render();
    this.renderPrompts();
    this.composer.focus();
  }

  dispose(): void {
    this.offs.forEach((off) => off());
    this.countdown.stop();
    this.socket.close();
    this.root.classList.remove('fill');
  }

  private layout(): HTMLElement {
    return h(
      'section',
      { class: 'view view-session view-conversation', 'aria-labelledby': 'conversation-h1' },
      [
        h('div', { class: 'session-bar' }, [
          h(
            'a',
            { class: 'btn btn-quiet', href: href({ name: 'dashboard' }), 'aria-label': 'Back to sessions' },
            ['←'],
          ),
          this.title,
          h('span', { class: 'session-status' }, [this.state, this.link, this.countdown.button]),
        ]),
        h('div', { class: 'session-tools' }, [
          h(
            'a',
            {
              class: 'btn btn-small',
              href: href({ name: 'files', id: this.id }),
              'data-testid': 'files-link',
            },
            ['Files'],
          ),
          button(
            'Rename',
            { class: 'btn btn-small', 'data-testid': 'rename' },
            () => void renameSession(this.known, this.id),
          ),
          this.actions,
        ]),
        this.scroller,
        h('div', { class: 'conversation-bottom' }, [this.composer.element, this.footer]),
      ],
    );
  }

  private onFrame(event: MessageEvent): void {
    this.socket.markHealthy();
    if (typeof event.data !== 'string') return;
    let frame: ConversationFrame;
    try {
      frame = JSON.parse(event.data) as ConversationFrame;
    } catch {
      return;
    }
    const follow = this.atBottom();
    if (frame.type === 'history') {
      replace(this.log, frame.entries.map(entryElement));
      this.empty.hidden = frame.entries.length > 0;
      this.empty.textContent = 'Nothing said yet: send the agent a message below.';
      this.composer.setEnabled(frame.canSend);
      this.setStatus(frame.state, frame.usage);
    } else if (frame.type === 'entry') this.upsert(frame.entry);
    else if (frame.type === 'status') this.setStatus(frame.state, frame.usage);
    else {
      this.setStatus('exited', this.usage);
      this.composer.setEnabled(false);
      void store.refreshSessions();
    }
    if (follow || frame.type === 'history') this.scrollToEnd();
  }

  /** A new entry at the end; a changed one (a tool card that ended) in its place. */
  private upsert(entry: ConversationEntry): void {
    const element = entryElement(entry);
    const existing = this.log.querySelector(`[data-testid="entry-${entry.id}"]`);
    if (existing) return existing.replaceWith(element);
    this.log.appendChild(element);
    this.empty.hidden = true;
    while (this.log.childElementCount > MAX_ENTRIES) this.log.firstElementChild?.remove();
  }

  private setStatus(state: ConversationState, usage: AgentUsage | null): void {
    this.agentState = state;
    this.usage = usage;
    this.renderFooter();
  }

  private renderFooter(): void {
    const usage = this.usage;
    const parts = [
      usage?.model ?? null,
      usage?.contextPercent !== undefined ? `context ${usage.contextPercent}%` : null,
      usage?.costUsd !== undefined ? `$${usage.costUsd.toFixed(2)}` : null,
      usage?.session ? `5 h limit ${usage.session.usedPercent}%` : null,
      usage?.weekly ? `weekly limit ${usage.weekly.usedPercent}%` : null,
      this.agentState === 'busy' ? 'working…' : this.agentState === 'exited' ? 'ended' : this.agentState,
    ];
    this.footer.textContent = parts.filter(Boolean).join(' · ');
  }

  private onDown(code: number, retryInMs: number | null): void {
    this.countdown.stop();
    if (code === NO_CONVERSATION) {
      // Not a conversation here: a terminal session goes to its terminal; anything else says so.
      const session = store.session(this.id);
      if (session?.live) return location.replace(href(sessionRoute({ ...session, conversation: false })));
      this.empty.hidden = false;
      this.empty.textContent = session
        ? 'This session has no conversation to show here (it runs elsewhere, or ended before this server started).'
        : 'No such session.';
      this.composer.setEnabled(false);
      return this.setLink('ended');
    }
    if (retryInMs === null) this.setLink('offline');
    else this.countdown.start(retryInMs);
  }

  private setLink(text: string): void {
    this.link.textContent = text;
    this.link.dataset.state = text === 'live' ? 'live' : 'down';
  }

  private atBottom(): boolean {
    const { scrollHeight, scrollTop, clientHeight } = this.scroller;
    return scrollHeight - scrollTop - clientHeight < AT_BOTTOM_PX;
  }

  private scrollToEnd(): void {
    this.scroller.scrollTop = this.scroller.scrollHeight;
  }

  private render(): void {
    this.known = store.session(this.id) ?? this.known;
    const session = this.known;
    this.title.textContent = session?.name ?? 'Session';
    this.title.title = session ? `${session.agent} in ${session.cwd}` : this.id;
    replaceIfChanged(this.state, [session ? stateBadge(session.state, 'session-state') : null]);
    replaceIfChanged(this.actions, session ? sessionActionButtons(session) : []);
    if (session?.state === 'exited') this.composer.setEnabled(false);
    const count = store.prompts.length;
    const base = `${session?.name ?? 'session'} — agent-bridge`;
    document.title = count > 0 ? `(${count}) ${base}` : base;
  }

  /** The session's waiting prompts, after the conversation, with the inbox's buttons. */
  private renderPrompts(): void {
    const follow = this.atBottom();
    const waiting = store.prompts.filter((p) => p.sessionId === this.id);
    reconcile(
      this.prompts,
      waiting,
      (p) => p.id,
      (prompt) => promptCard(prompt, () => this.composer.focus(), { linkToSession: false }),
      () => {},
    );
    this.prompts.hidden = waiting.length === 0;
    this.composer.setWaiting(waiting.length > 0);
    if (follow) this.scrollToEnd();
  }
}
