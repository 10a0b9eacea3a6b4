import { SearchAddon } from '@xterm/addon-search';
import { Terminal } from '@xterm/xterm';
import { wsUrl } from '../api.js';
import { copyText } from '../clipboard.js';
import { ReconnectingSocket } from '../socket.js';
import { onSchemeChange, terminalOptions, terminalTheme } from '../theme.js';
import type { TerminalFrame } from '../types.js';
import { cellAtFont, cellPixels, cellsThatFit, fontToShow, roomFor, type Cells } from './fit.js';
import { keyBytes, withCtrl, type KeyName } from './keys.js';
import { ownFontSize, setOwnFontSize } from './settings.js';

/**
 * A session's live terminal: xterm.js on /ws/terminal/<id>. Each (re)connect starts from the server's
 * `screen` frame in a reset terminal, then raw output; keys and pastes go back as `input`. The terminal has
 * one size for all its viewers: the server says whose it is (`size` frames). This viewer's own fit goes to the
 * server as `resize`; while it drives, the terminal takes it; otherwise the terminal is shown at the driver's
 * size, scaled down to fit or letterboxed.
 */

export type LinkStatus =
  { state: 'connecting' } | { state: 'live' } | { state: 'reconnecting'; inMs: number } | { state: 'ended' };

/** Who sizes the terminal, as this viewer sees it. */
export interface SizeStatus {
  driving: boolean;
  canType: boolean;
  /** The terminal is shown smaller than the person's font (another viewer's larger screen). */
  scaled: boolean;
  /** No viewer sizes it: the terminal it runs in does (a session of `agent-bridge run`). */
  fixed: boolean;
  /** The agent ended: nothing is sized or typed any more. */
  exited: boolean;
}

export interface LiveTerminalHooks {
  onStatus(status: LinkStatus): void;
  onExit(info: { exitCode: number | null; signal: string | null }): void;
  /** Asked when the socket drops (with its close code): false when the session is gone for good. */
  shouldReconnect(code: number): Promise<boolean>;
  onSize?(status: SizeStatus): void;
  /** The person pressed the escape key (Ctrl+]): focus goes to the page. */
  onLeave?(): void;
  /** The Ctrl key of the key bar was used up by a key. */
  onCtrlUsed?(): void;
}

/** Input frames stay far below the server's 64 KB frame limit, even JSON-escaped. */
const MAX_INPUT_CHARS = 8000;

export class LiveTerminal {
  readonly term: Terminal;
  readonly search = new SearchAddon({ highlightLimit: 500 });
  private readonly socket: ReconnectingSocket;
  private readonly observer: ResizeObserver;
  private readonly cleanups: Array<() => void> = [];
  /** The size the server's terminal has, as far as we know. */
  private remote: Cells = { cols: 0, rows: 0 };
  private driving = false;
  private canType = false;
  /** No viewer sizes this terminal (the server said so in its hello). */
  private fixedSize = false;
  /** The fit last told to the server. */
  private told: Cells = { cols: 0, rows: 0 };
  private fontSize = ownFontSize();
  /** The current connection's screen has been drawn. */
  private drawn = false;
  private exited = false;
  private ctrl = false;
  private layoutTimer: number | undefined;

  constructor(
    private readonly container: HTMLElement,
    sessionId: string,
    private readonly hooks: LiveTerminalHooks,
    private readonly readOnly = false,
  ) {
    this.term = new Terminal({
      ...terminalOptions(),
      fontSize: this.fontSize,
      disableStdin: true,
      // The search addon marks its matches with decorations, an API xterm.js still calls proposed.
      allowProposedApi: true,
    });
    this.term.loadAddon(this.search);
    this.term.open(container);
    this.term.onData((data) => this.input(this.ctrl ? this.useCtrl(data) : data));
    this.term.onBinary((data) => this.input(data));
    this.term.attachCustomKeyEventHandler((event) => this.keyHandler(event));

    // Our own paste: the text goes to the program as is (bracketed paste is the program's business).
    const onPaste = (event: ClipboardEvent): void => {
      event.preventDefault();
      event.stopPropagation();
      const text = event.clipboardData?.getData('text/plain') ?? '';
      if (text) this.input(text);
    };
    container.addEventListener('paste', onPaste, { capture: true });
    this.cleanups.push(() => container.removeEventListener('paste', onPaste, { capture: true }));

    this.observer = new ResizeObserver(() => this.scheduleLayout());
    this.observer.observe(container);
    this.cleanups.push(onSchemeChange(() => (this.term.options.theme = terminalTheme())));

    hooks.onStatus({ state: 'connecting' });
    const query = readOnly ? '?watch=1' : '';
    this.socket = new ReconnectingSocket(wsUrl(`/ws/terminal/${encodeURIComponent(sessionId)}${query}`), {
      onOpen: () => {
        this.unlink();
        this.told = { cols: 0, rows: 0 };
        hooks.onStatus({ state: 'connecting' });
      },
      onMessage: (event) => this.onMessage(event),
      onDown: ({ retryInMs }) => {
        this.unlink();
        hooks.onStatus(retryInMs === null ? { state: 'ended' } : { state: 'reconnecting', inMs: retryInMs });
      },
      shouldReconnect: async (code) => !this.exited && (await hooks.shouldReconnect(code)),
    });
  }

  get connected(): boolean {
    return this.socket.connected && this.drawn;
  }

  get font(): number {
    return this.fontSize;
  }

  /** Sends keys (or pasted text) to the program; none while the link is down (see unlink). */
  input(data: string): void {
    if (this.exited || !data || !this.canType || !this.drawn) return;
    for (let start = 0; start < data.length;) {
      let end = Math.min(data.length, start + MAX_INPUT_CHARS);
      const last = data.charCodeAt(end - 1);
      if (end < data.length && last >= 0xd800 && last <= 0xdbff) end--; // keep surrogate pairs whole
      this.socket.send(JSON.stringify({ type: 'input', data: data.slice(start, end) }));
      start = end;
    }
  }

  /** A key of the on-screen key bar (with the bar's Ctrl, if it is on). */
  key(name: KeyName): void {
    const ctrl = this.ctrl;
    if (ctrl) this.useCtrl('');
    this.input(keyBytes(name, this.term.modes.applicationCursorKeysMode, ctrl));
  }

  /** The key bar's Ctrl: applies to the next key typed or pressed on the bar. */
  setCtrl(on: boolean): void {
    this.ctrl = on;
  }

  /** Makes this viewer's size the terminal's (it would on typing too). */
  drive(): void {
    this.socket.send(JSON.stringify({ type: 'drive' }));
  }

  /** A new font size for this browser; the others keep theirs. */
  setFont(size: number): number {
    this.fontSize = setOwnFontSize(size);
    this.layoutNow();
    return this.fontSize;
  }

  /** Copies the selection; false when nothing is selected. */
  async copySelection(): Promise<boolean> {
    const text = this.term.getSelection();
    if (!text) return false;
    await copyText(text);
    return true;
  }

  /** Pastes from the clipboard API (needs a secure context and the person's permission). */
  async pasteFromClipboard(): Promise<void> {
    if (!navigator.clipboard?.readText) throw new Error('this browser does not let pages read the clipboard');
    this.input(await navigator.clipboard.readText());
  }

  reconnectNow(): void {
    this.socket.reconnectNow();
  }

  focus(): void {
    this.term.focus();
  }

  dispose(): void {
    window.clearTimeout(this.layoutTimer);
    this.socket.close();
    this.observer.disconnect();
    for (const cleanup of this.cleanups) cleanup();
    this.term.dispose();
  }

  /**
   * The link is down or not yet live: keys are not taken until the next connection's screen is drawn (the
   * page says so), rather than typed into a socket that is gone and lost without a word.
   */
  private unlink(): void {
    this.drawn = false;
    this.term.options.disableStdin = true;
  }

  private useCtrl(data: string): string {
    this.ctrl = false;
    this.hooks.onCtrlUsed?.();
    return withCtrl(data);
  }

  private keyHandler(event: KeyboardEvent): boolean {
    // The escape key (as VS Code's terminal has one): Tab and Esc belong to the program, Ctrl+] leaves it.
    if (event.ctrlKey && !event.altKey && !event.metaKey && event.code === 'BracketRight') {
      if (event.type === 'keydown') {
        event.preventDefault();
        this.hooks.onLeave?.();
      }
      return false;
    }
    if (!event.ctrlKey || !event.shiftKey || event.altKey || event.metaKey) return true;
    const key = event.key.toLowerCase();
    if (key === 'c') {
      if (event.type === 'keydown') {
        event.preventDefault();
        void this.copySelection();
      }
      return false;
    }
    // Not handled here: the browser's own paste follows and reaches the paste listener.
    return key !== 'v';
  }

  private onMessage(event: MessageEvent): void {
    if (event.data instanceof ArrayBuffer) {
      this.term.write(new Uint8Array(event.data));
      return;
    }
    if (typeof event.data !== 'string') return;
    let frame: TerminalFrame;
    try {
      frame = JSON.parse(event.data) as TerminalFrame;
    } catch {
      return;
    }
    switch (frame.type) {
      case 'hello':
        this.socket.markHealthy();
        this.remote = { cols: frame.cols, rows: frame.rows };
        this.canType = frame.canType !== false && !this.readOnly;
        this.fixedSize = frame.fixedSize === true;
        this.driving = false;
        break;
      case 'screen': {
        // Queued behind any output still being parsed from the previous connection: a fresh terminal at the
        // size the screen was rendered at; laying it out (and telling the server our fit) once it is drawn.
        const { cols, rows } = this.remote;
        this.term.write('', () => {
          this.term.reset();
          if (cols > 0 && rows > 0) this.term.resize(cols, rows);
        });
        this.term.write(frame.data, () => {
          this.drawn = true;
          this.term.options.disableStdin = !this.canType || this.exited;
          this.hooks.onStatus({ state: 'live' });
          this.layoutNow();
        });
        break;
      }
      case 'size':
        this.remote = { cols: frame.cols, rows: frame.rows };
        this.driving = frame.driving;
        this.term.write('', () => this.layoutNow());
        break;
      case 'exit':
        this.exited = true;
        this.canType = false;
        this.term.options.disableStdin = true;
        this.hooks.onExit({ exitCode: frame.exitCode ?? null, signal: frame.signal ?? null });
        break;
    }
  }

  private scheduleLayout(): void {
    window.clearTimeout(this.layoutTimer);
    this.layoutTimer = window.setTimeout(() => this.layoutNow(), 60);
  }

  /**
   * Tells the server the size that fits this viewer at the person's font, then shows the terminal: at that
   * size while this viewer drives, else at the driver's size with a font small enough to show it whole.
   */
  private sizeStatus(scaled: boolean): SizeStatus {
    const { driving, canType, fixedSize: fixed, exited } = this;
    return { driving, canType, scaled, fixed, exited };
  }

  private layoutNow(): void {
    if (!this.drawn) return;
    const cell = cellPixels(this.term);
    const current = this.term.options.fontSize ?? this.fontSize;
    const room = roomFor(this.term, this.container);
    if (!cell || room.width <= 0 || room.height <= 0) {
      // Nothing to measure yet (hidden, not rendered): whether keys are taken is said all the same.
      this.hooks.onSize?.(this.sizeStatus(false));
      return;
    }
    const ownCell = cellAtFont(cell, current, this.fontSize);
    const fit = cellsThatFit(room, ownCell);
    if (this.canType && !this.exited && (fit.cols !== this.told.cols || fit.rows !== this.told.rows)) {
      if (this.socket.send(JSON.stringify({ type: 'resize', ...fit }))) this.told = fit;
    }
    const shown = this.driving ? fit : this.remote;
    if (shown.cols > 0 && (shown.cols !== this.term.cols || shown.rows !== this.term.rows))
      this.term.resize(shown.cols, shown.rows);
    const font = this.driving ? this.fontSize : fontToShow(shown, room, ownCell, this.fontSize);
    this.container.classList.toggle('letterboxed', !this.driving);
    this.hooks.onSize?.(this.sizeStatus(font < this.fontSize));
    if (Math.abs(font - current) >= 0.5) {
      this.term.options.fontSize = font;
      // The renderer measures the new font's cells; lay out again with them.
      this.scheduleLayout();
    }
  }
}
