import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import { wsUrl } from './api.js';
import { copyText } from './clipboard.js';
import { ReconnectingSocket } from './socket.js';
import { onSchemeChange, terminalFontSize, terminalOptions, terminalTheme } from './theme.js';
import type { TerminalFrame } from './types.js';

/**
 * A session's live terminal: xterm.js on /ws/terminal/<id>. Each (re)connect starts from the server's
 * `screen` frame in a reset terminal, then raw output; keys and pastes go back as `input`, the fitted size
 * as `resize`.
 */

export type LinkStatus =
  { state: 'connecting' } | { state: 'live' } | { state: 'reconnecting'; inMs: number } | { state: 'ended' };

export interface LiveTerminalHooks {
  onStatus(status: LinkStatus): void;
  onExit(info: { exitCode: number | null; signal: string | null }): void;
  /** Asked when the socket drops (with its close code): false when the session is gone for good. */
  shouldReconnect(code: number): Promise<boolean>;
}

/** Input frames stay far below the server's 64 KB frame limit, even JSON-escaped. */
const MAX_INPUT_CHARS = 8000;

export class LiveTerminal {
  readonly term: Terminal;
  private readonly fit = new FitAddon();
  private readonly socket: ReconnectingSocket;
  private readonly observer: ResizeObserver;
  private readonly cleanups: Array<() => void> = [];
  /** The size the server's terminal has, as far as we know. */
  private remote = { cols: 0, rows: 0 };
  /** The current connection's screen has been drawn. */
  private drawn = false;
  private exited = false;
  private fitTimer: number | undefined;

  constructor(
    private readonly container: HTMLElement,
    sessionId: string,
    private readonly hooks: LiveTerminalHooks,
  ) {
    this.term = new Terminal(terminalOptions());
    this.term.loadAddon(this.fit);
    this.term.open(container);
    this.term.onData((data) => this.input(data));
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

    this.observer = new ResizeObserver(() => this.scheduleFit());
    this.observer.observe(container);
    const onWindowResize = (): void => {
      const size = terminalFontSize();
      if (this.term.options.fontSize !== size) this.term.options.fontSize = size;
      this.scheduleFit();
    };
    window.addEventListener('resize', onWindowResize);
    window.visualViewport?.addEventListener('resize', onWindowResize);
    this.cleanups.push(() => {
      window.removeEventListener('resize', onWindowResize);
      window.visualViewport?.removeEventListener('resize', onWindowResize);
    });
    this.cleanups.push(onSchemeChange(() => (this.term.options.theme = terminalTheme())));

    hooks.onStatus({ state: 'connecting' });
    this.socket = new ReconnectingSocket(wsUrl(`/ws/terminal/${encodeURIComponent(sessionId)}`), {
      onOpen: () => {
        this.drawn = false;
        hooks.onStatus({ state: 'connecting' });
      },
      onMessage: (event) => this.onMessage(event),
      onDown: ({ retryInMs }) => {
        this.drawn = false;
        hooks.onStatus(retryInMs === null ? { state: 'ended' } : { state: 'reconnecting', inMs: retryInMs });
      },
      shouldReconnect: async (code) => !this.exited && (await hooks.shouldReconnect(code)),
    });
  }

  get connected(): boolean {
    return this.socket.connected && this.drawn;
  }

  /** Sends keys (or pasted text) to the program. */
  input(data: string): void {
    if (this.exited || !data) return;
    for (let start = 0; start < data.length;) {
      let end = Math.min(data.length, start + MAX_INPUT_CHARS);
      const last = data.charCodeAt(end - 1);
      if (end < data.length && last >= 0xd800 && last <= 0xdbff) end--; // keep surrogate pairs whole
      this.socket.send(JSON.stringify({ type: 'input', data: data.slice(start, end) }));
      start = end;
    }
  }

  /** A special key from the on-screen key bar, in the encoding the program asked for (cursor keys mode). */
  key(name: 'esc' | 'tab' | 'shift-tab' | 'ctrl-c' | 'up' | 'down' | 'left' | 'right' | 'enter'): void {
    const app = this.term.modes.applicationCursorKeysMode;
    const arrows = { up: 'A', down: 'B', right: 'C', left: 'D' } as const;
    switch (name) {
      case 'esc':
        return this.input('\x1b');
      case 'tab':
        return this.input('\t');
      case 'shift-tab':
        return this.input('\x1b[Z');
      case 'ctrl-c':
        return this.input('\x03');
      case 'enter':
        return this.input('\r');
      default:
        return this.input(`${app ? '\x1bO' : '\x1b['}${arrows[name]}`);
    }
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
    window.clearTimeout(this.fitTimer);
    this.socket.close();
    this.observer.disconnect();
    for (const cleanup of this.cleanups) cleanup();
    this.term.dispose();
  }

  private keyHandler(event: KeyboardEvent): boolean {
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
        break;
      case 'screen': {
        // Queued behind any output still being parsed from the previous connection: a fresh terminal at the
        // size the screen was rendered at; fitting it (and telling the server) comes once it is drawn.
        const { cols, rows } = this.remote;
        this.term.write('', () => {
          this.term.reset();
          if (cols > 0 && rows > 0) this.term.resize(cols, rows);
        });
        this.term.write(frame.data, () => {
          this.drawn = true;
          this.hooks.onStatus({ state: 'live' });
          this.fitNow();
        });
        break;
      }
      case 'exit':
        this.exited = true;
        this.term.options.disableStdin = true;
        this.hooks.onExit({ exitCode: frame.exitCode ?? null, signal: frame.signal ?? null });
        break;
    }
  }

  private scheduleFit(): void {
    window.clearTimeout(this.fitTimer);
    this.fitTimer = window.setTimeout(() => this.fitNow(), 60);
  }

  private fitNow(): void {
    const dims = this.fit.proposeDimensions();
    if (!dims || !Number.isFinite(dims.cols) || !Number.isFinite(dims.rows)) return;
    const cols = Math.max(2, dims.cols);
    const rows = Math.max(1, dims.rows);
    if (cols !== this.term.cols || rows !== this.term.rows) this.term.resize(cols, rows);
    if (!this.drawn || this.exited) return;
    if (cols === this.remote.cols && rows === this.remote.rows) return;
    if (this.socket.send(JSON.stringify({ type: 'resize', cols, rows }))) this.remote = { cols, rows };
  }
}
