import { promptHeadline } from '../../../src/core/prompt-headline.js';
import { button, h, replace, replaceIfChanged } from '../dom.js';
import { recordingId } from '../format.js';
import { href, sessionRoute } from '../router.js';
import { ReconnectCountdown } from '../reconnect-countdown.js';
import { store } from '../store.js';
import { keyBar, type KeyBar } from '../terminal/key-bar.js';
import { LiveTerminal, type LinkStatus, type SizeStatus } from '../terminal/live-terminal.js';
import { searchBar, type SearchBar } from '../terminal/search-bar.js';
import { toast } from '../toast.js';
import type { Session } from '../types.js';
import { elsewhereText, endedText, errorText, runsElsewhere, stateBadge } from './common.js';
import { renameSession, restartSession, sessionActionButtons } from './session-actions.js';

/**
 * #/session/<id>: the live terminal, with search, font size, copy/paste, a key bar for phones, and one set of
 * actions (Stop and Restart ask first; Start again and Resume once it ended). Ctrl+] leaves the terminal
 * (Tab and Esc belong to the program). While the terminal's socket is down the page counts down to the next
 * try and offers to reconnect now; a session that runs where this page cannot show its terminal (another
 * machine of the cluster) is said to run there, with its state and actions.
 */

/** The close code the server gives when the session has no live terminal to attach to. */
const NO_SUCH_LIVE_SESSION = 4404;
const HINT_ID = 'terminal-hint';

interface Parts {
  title: HTMLElement;
  state: HTMLElement;
  link: HTMLElement;
  reconnect: HTMLButtonElement;
  actions: HTMLElement;
  sizeNote: HTMLElement;
  fit: HTMLButtonElement;
  strip: HTMLElement;
  /** What holds the size note and the strip over the terminal. */
  notes: HTMLElement;
  banner: HTMLElement;
  box: HTMLElement;
}

export function sessionView(root: HTMLElement, id: string): () => void {
  const view = new SessionView(root, id);
  return () => view.dispose();
}

class SessionView {
  private live: LiveTerminal | null = null;
  private readonly parts: Parts;
  private readonly keys: KeyBar;
  private search: SearchBar | null = null;
  private readonly searchSlot = h('div', { class: 'search-slot' });
  private readonly offs: Array<() => void>;
  /** The session as last listed (kept when a refresh fails). */
  private known: Session | undefined;
  private ended = false;
  /** It runs where this page cannot show its terminal: no terminal is connected. */
  private elsewhere = false;
  private readOnly: boolean;
  /** The terminal's link as last told (the countdown runs while it is `reconnecting`). */
  private linkState: LinkStatus['state'] = 'connecting';
  /** "reconnecting in 4 s…" and "Reconnect now", while a reconnect is scheduled. */
  private readonly countdown = new ReconnectCountdown(
    (text) => (this.parts.link.textContent = text),
    () => this.live?.reconnectNow(),
  );

  constructor(
    private readonly root: HTMLElement,
    private readonly id: string,
  ) {
    this.known = store.session(id);
    this.readOnly = sessionStorage.getItem(watchKey(id)) === '1';
    this.parts = {
      title: h('h1', { class: 'session-title', 'data-testid': 'session-title' }),
      state: h('span'),
      link: h('span', { class: 'link-status', 'data-testid': 'link-status', role: 'status' }),
      reconnect: this.countdown.button,
      actions: h('div', { class: 'session-actions' }),
      sizeNote: h('p', { class: 'size-note', role: 'status', 'data-testid': 'size-note', hidden: true }),
      fit: button('Fit to this screen', { class: 'btn btn-small', 'data-testid': 'fit', hidden: true }, () =>
        this.live?.drive(),
      ),
      strip: h('div', { class: 'prompt-strip', hidden: true }),
      notes: h('div', { class: 'terminal-notes', 'data-testid': 'terminal-notes' }),
      banner: h('div', { class: 'exit-banner', 'data-testid': 'exit-banner', role: 'status', hidden: true }),
      box: h('div', { class: 'terminal-box', 'data-testid': 'terminal' }),
    };
    this.keys = keyBar(
      (name) => this.live?.key(name),
      (on) => this.live?.setCtrl(on),
    );
    replace(root, [this.layout()]);
    root.classList.add('fill');
    this.connect();
    this.render();
    this.offs = [
      store.on('sessions', () => this.render()),
      // This machine's name, to tell whether the session runs on another one.
      store.on('config', () => this.render()),
      store.on('prompts', () => this.renderStrip()),
    ];
    this.renderStrip();
  }

  dispose(): void {
    this.offs.forEach((off) => off());
    this.countdown.stop();
    this.live?.dispose();
    this.root.classList.remove('fill');
  }

  private layout(): HTMLElement {
    const { parts } = this;
    const font = (delta: number) =>
      button(
        delta < 0 ? 'A−' : 'A+',
        {
          class: 'btn btn-small',
          'aria-label': delta < 0 ? 'A− smaller text' : 'A+ larger text',
          'data-testid': delta < 0 ? 'font-smaller' : 'font-larger',
        },
        () => {
          if (this.live) this.live.setFont(this.live.font + delta);
        },
      );
    replace(parts.notes, [parts.sizeNote, parts.strip]);
    return h('section', { class: 'view view-session', 'aria-labelledby': 'session-h1' }, [
      h('div', { class: 'session-bar' }, [
        h(
          'a',
          { class: 'btn btn-quiet', href: href({ name: 'dashboard' }), 'aria-label': 'Back to sessions' },
          ['←'],
        ),
        parts.title,
        h('span', { class: 'session-status' }, [parts.state, parts.link, parts.reconnect]),
      ]),
      h('div', { class: 'session-tools' }, [
        button('Search', { class: 'btn btn-small', 'data-testid': 'search-toggle' }, () =>
          this.search?.isOpen ? this.search.close() : this.search?.open(),
        ),
        font(-1),
        font(+1),
        parts.fit,
        this.moreMenu(),
        parts.actions,
      ]),
      this.searchSlot,
      parts.banner,
      // The notes lie over the terminal's rows: in the flow, each one shown or hidden would resize the
      // terminal, and the program would redraw (SIGWINCH) every time a prompt came or went.
      h('div', { class: 'terminal-area' }, [parts.notes, parts.box]),
      h('p', { id: HINT_ID, class: 'terminal-hint' }, [
        h('kbd', {}, ['Ctrl']),
        '+',
        h('kbd', {}, [']']),
        ' leaves the terminal; Tab and Esc go to the program.',
      ]),
      this.keys.element,
    ]);
  }

  private readonly menuItems = h('div', { class: 'more-items' });
  private readonly menu = h('details', { class: 'more-menu', 'data-testid': 'more' }, [
    h('summary', { class: 'btn btn-small' }, ['More']),
    this.menuItems,
  ]);

  private moreMenu(): HTMLElement {
    this.menu.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape' || !this.menu.open) return;
      this.menu.open = false;
      this.menu.querySelector('summary')?.focus();
    });
    return this.menu;
  }

  /** What is used less: watch only, files, copy, paste, rename, and Restart while it runs. */
  private renderMenu(session: Session | undefined): void {
    const item = (label: string, testid: string, run: () => void, extra: Record<string, string> = {}) =>
      button(label, { class: 'btn btn-small', 'data-testid': testid, ...extra }, () => {
        this.menu.open = false;
        run();
      });
    const running = session !== undefined && session.state !== 'exited';
    replaceIfChanged(this.menuItems, [
      running && session.canType
        ? item('Watch only', 'watch-only', () => this.setReadOnly(!this.readOnly), {
            'aria-pressed': String(this.readOnly),
          })
        : null,
      h(
        'a',
        { class: 'btn btn-small', href: href({ name: 'files', id: this.id }), 'data-testid': 'files-link' },
        ['Files'],
      ),
      item('Copy', 'copy', () => void this.copy()),
      running && session.canType ? item('Paste', 'paste', () => void this.paste()) : null,
      item('Rename', 'rename', () => void this.rename()),
      running && session.canRestart
        ? item('Restart', `restart-${this.id}`, () => void restartSession(this.known, 'restart'))
        : null,
    ]);
  }

  /**
   * (Re)connects the terminal: watching only, or typing too. Not for a session known to have ended, nor for one
   * that runs where this page cannot show it.
   */
  private connect(): void {
    this.disconnect();
    if (this.known?.state === 'exited') return this.showEnded(endedBannerText(this.known));
    if (this.known && runsElsewhere(this.known)) return this.showElsewhere(this.known);
    const live = new LiveTerminal(
      this.parts.box,
      this.id,
      {
        onStatus: (status) => this.onLink(status),
        onExit: ({ exitCode, signal }) => {
          const how = signal ? ` (signal ${signal})` : exitCode !== null ? ` (code ${exitCode})` : '';
          this.showEnded(`Exited${how}.`);
          void store.refreshSessions();
        },
        shouldReconnect: (code) => this.shouldReconnect(code),
        onSize: (status) => this.onSize(status),
        onLeave: () => this.leaveTerminal(),
        onCtrlUsed: () => this.keys.ctrlUsed(),
      },
      this.readOnly,
    );
    this.live = live;
    live.term.onCursorMove(() => this.placeNotes(live));
    live.term.onResize(() => this.placeNotes(live));
    live.term.textarea?.setAttribute('aria-describedby', HINT_ID);
    this.search = searchBar(live.search, () => live.focus());
    replace(this.searchSlot, [this.search.element]);
    if (!this.readOnly) live.focus();
  }

  /**
   * The notes lie over the half of the terminal the cursor is not in: a prompt waits at the cursor, so what it
   * asks and the lines just above it stay in sight (on a phone the strip spans the terminal's width).
   */
  private placeNotes(live: LiveTerminal): void {
    const { term } = live;
    this.parts.notes.classList.toggle('at-bottom', term.buffer.active.cursorY < term.rows / 2);
  }

  private disconnect(): void {
    this.live?.dispose();
    this.live = null;
    this.search = null;
    this.linkState = 'connecting';
    this.countdown.stop();
    replace(this.searchSlot, []);
    replace(this.parts.box, []);
  }

  private setReadOnly(readOnly: boolean): void {
    this.readOnly = readOnly;
    if (readOnly) sessionStorage.setItem(watchKey(this.id), '1');
    else sessionStorage.removeItem(watchKey(this.id));
    this.connect();
    this.render();
  }

  /** Ctrl+]: out of the terminal, to the first key of the bar below it (Tab goes on from there). */
  private leaveTerminal(): void {
    const first = this.keys.element.querySelector<HTMLButtonElement>('button:not(:disabled)');
    (first ?? this.parts.title).focus();
  }

  private onLink(status: LinkStatus): void {
    const { link, banner } = this.parts;
    if (this.ended || this.elsewhere) return;
    this.linkState = status.state;
    link.dataset.state = status.state;
    if (status.state === 'reconnecting') this.countdown.start(status.inMs);
    else {
      this.countdown.stop();
      link.textContent = status.state;
    }
    if (status.state === 'live') banner.hidden = true;
    // Until the screen is drawn again no key is sent (the terminal's next size status enables them).
    if (status.state === 'connecting' || status.state === 'reconnecting') this.notLinked();
    if (status.state === 'ended') {
      // No terminal here: the session ended, or it runs where this page cannot show it (another machine).
      const session = store.session(this.id) ?? this.known;
      if (session && runsElsewhere(session)) this.showElsewhere(session);
      else this.showEnded(endedBannerText(session));
    }
  }

  private notLinked(): void {
    this.showKeys(false, false, 'Not connected: keys typed here are not sent until the terminal is back.');
  }

  private onSize({ driving, canType, scaled, fixed, exited }: SizeStatus): void {
    // Ended: the banner says how; nothing is typed or sized any more.
    if (exited) return this.showKeys(false, false, '');
    const smaller = scaled ? ', shown smaller here' : '';
    const text = !canType
      ? this.readOnly
        ? 'Watching only: keys from this page do not reach the program.'
        : 'Watching only: this session takes no keys from the web (start it with agent-bridge run --web-input).'
      : driving
        ? ''
        : fixed
          ? `Sized by the terminal it runs in (agent-bridge run)${smaller}.`
          : `Sized by another viewer${smaller}: type, or Fit to this screen, to size it to this one.`;
    this.showKeys(canType, canType && !driving && !fixed, text);
  }

  /** Whether keys are taken here (the key bar), whether Fit is offered, and the note that says why ('' none). */
  private showKeys(taken: boolean, fitOffered: boolean, note: string): void {
    const { sizeNote, fit } = this.parts;
    fit.hidden = !fitOffered;
    this.keys.setEnabled(taken);
    sizeNote.textContent = note;
    sizeNote.hidden = note === '';
  }

  private async shouldReconnect(code: number): Promise<boolean> {
    await store.refreshSessions();
    if (code === NO_SUCH_LIVE_SESSION) return false;
    if (store.status.error) return true; // the server is unreachable: keep trying
    const session = store.session(this.id);
    return !!session && session.live;
  }

  /** A running session whose terminal is not here: where it runs, its state and actions; no terminal. */
  private showElsewhere(session: Session): void {
    if (!this.elsewhere) this.disconnect();
    this.elsewhere = true;
    const { banner, link } = this.parts;
    const other = session.host !== store.config?.host;
    this.countdown.stop();
    link.dataset.state = 'elsewhere';
    link.textContent = other ? `on ${session.host}` : 'not here';
    replace(banner, [h('span', {}, [elsewhereText(session)])]);
    banner.hidden = false;
    this.keys.setEnabled(false);
    this.parts.fit.hidden = true;
    this.parts.sizeNote.hidden = true;
  }

  private showEnded(text: string): void {
    this.ended = true;
    this.elsewhere = false;
    this.countdown.stop();
    const { banner, link } = this.parts;
    link.dataset.state = 'ended';
    link.textContent = 'ended';
    const recording = this.known?.recording ? recordingId(this.known.recording) : null;
    replace(banner, [
      h('span', {}, [text]),
      recording
        ? h('a', { class: 'btn btn-small', href: href({ name: 'recording', id: recording }) }, [
            'Play recording',
          ])
        : null,
    ]);
    banner.hidden = false;
    this.keys.setEnabled(false);
    this.parts.fit.hidden = true;
    this.parts.sizeNote.hidden = true;
    if (this.known && this.known.state !== 'exited')
      this.known = { ...this.known, state: 'exited', live: false };
    this.render();
  }

  private render(): void {
    const listed = store.session(this.id);
    if (listed)
      this.known = this.ended && listed.state !== 'exited' ? { ...listed, state: 'exited' } : listed;
    const session = this.known;
    // A structured session has no terminal: its page is its conversation.
    if (session?.conversation && !session.live) return location.replace(href(sessionRoute(session)));
    // While its terminal is live here, the terminal says when that ends (a list may lag behind it).
    if (!this.ended && this.linkState !== 'live') this.followWhereItRuns(session);
    const { title, state } = this.parts;
    title.id = 'session-h1';
    title.textContent = session?.name ?? 'Session';
    title.title = session ? `${session.agent} in ${session.cwd}` : this.id;
    replaceIfChanged(state, [session ? stateBadge(session.state, 'session-state') : null]);
    this.renderActions(session);
    this.renderMenu(session);
    const count = store.prompts.length;
    const base = `${session?.name ?? 'session'} — agent-bridge`;
    document.title = count > 0 ? `(${count}) ${base}` : base;
  }

  /** A session shown as running elsewhere that ended, or that this page can show after all. */
  private followWhereItRuns(session: Session | undefined): void {
    if (session && runsElsewhere(session)) return this.showElsewhere(session);
    if (!this.elsewhere || !session) return;
    if (session.state === 'exited') return this.showEnded(endedBannerText(session));
    this.elsewhere = false;
    this.parts.banner.hidden = true;
    this.connect();
  }

  private renderActions(session: Session | undefined): void {
    replaceIfChanged(this.parts.actions, session ? sessionActionButtons(session) : []);
  }

  private renderStrip(): void {
    const strip = this.parts.strip;
    const prompts = store.prompts.filter((p) => p.sessionId === this.id);
    strip.hidden = prompts.length === 0;
    const first = prompts[0];
    replace(strip, [
      first
        ? h('span', { class: 'prompt-strip-text' }, [
            `Waiting for you: ${promptHeadline(first.excerpt, 160)}`,
          ])
        : null,
      h('a', { class: 'btn btn-small btn-primary', href: href({ name: 'inbox' }) }, [
        prompts.length > 1 ? `Answer (${prompts.length})` : 'Answer',
      ]),
    ]);
  }

  private async copy(): Promise<void> {
    try {
      if (!(await this.live?.copySelection())) toast('Select some text in the terminal first.');
      else toast('Copied.', { kind: 'ok', timeoutMs: 2000 });
    } catch (error) {
      toast(`Copy failed: ${errorText(error)}`, { kind: 'error' });
    }
  }

  private async paste(): Promise<void> {
    try {
      await this.live?.pasteFromClipboard();
    } catch (error) {
      toast(`Paste with Ctrl+Shift+V (or the browser's Paste) instead: ${errorText(error)}`, {
        kind: 'error',
      });
    }
    this.live?.focus();
  }

  private rename(): Promise<void> {
    return renameSession(this.known, this.id);
  }
}

function watchKey(id: string): string {
  return `agent-bridge.watch.${id}`;
}

function endedBannerText(session: Session | undefined): string {
  if (!session) return 'No such session.';
  if (session.state === 'exited') return `This session ${endedText(session)}.`;
  if (session.runsIn === 'elsewhere') return 'This session runs where this page cannot show it.';
  return 'The terminal is not reachable right now.';
}
