import { systemClock, type Clock } from '../../core/clock.js';
import type { AgentEvent, AgentEventListener, ExitInfo } from '../../core/events.js';
import type { DetectedPrompt, ReplyAction } from '../../core/prompt.js';
import type { ScreenVocabulary } from '../../core/screen-vocabulary.js';
import type { AgentDriver } from '../driver.js';
import type { StartupPromptRule } from '../../core/startup-rules.js';
import { PromptDetector, type DetectorSignal } from './detector/prompt-detector.js';
import { ttyWaitState } from './detector/tty-blocked.js';
import { replyKeys } from './reply-keys.js';
import { encodeTextInput } from './input.js';
import type { PtySpawnOptions } from './pty-process.js';
import { ScreenModel, type ScreenSnapshot } from './screen.js';
import { StartupResponder } from './startup-responder.js';
import { LocalPty, type CellSize, type TerminalPort } from './terminal-port.js';

/** Gap between a text body and its Enter: Claude Code acts on an Enter that arrives in the same write too early. */
export const SUBMIT_GAP_MS = 30;
/**
 * How often an answer is tried again when the program wrote something between the look at its screen and the
 * keys (a spinner, a clock): each try reads the screen afresh.
 */
const ANSWER_ATTEMPTS = 20;
/** The wait for the screen to settle again between two tries. */
const RETRY_SETTLE_MS = 250;

/** The prompt left the screen before its answer could be typed: nothing was typed. */
export class PromptNotShown extends Error {
  override name = 'PromptNotShown';
  constructor() {
    super(
      'the prompt is no longer on screen (answered at the terminal, or the program moved on); nothing was typed',
    );
  }
}

/** What the terminal driver reads a screen with, wherever its PTY is. */
export interface TerminalReadingOptions {
  clock?: Clock;
  /** Start-up questions answered automatically (folder trust); empty to answer none. */
  startupPrompts?: StartupPromptRule[];
  autoAcceptStartup?: boolean;
  /** The agent's screen vocabulary; prompts are detected when given. */
  vocabulary?: ScreenVocabulary;
  /** Silence before an unrecognised screen becomes a low-confidence prompt (default 2 s). */
  stallMs?: number;
}

export interface TerminalSessionOptions extends PtySpawnOptions, TerminalReadingOptions {}

/**
 * The terminal driver for one agent: its terminal (a PTY here, or in a session host: a TerminalPort), the
 * screen a person would see, read here, and the prompt detector. Emits the shared event stream (output,
 * status, exit). Agent quirks arrive as data (start-up rules), never as ifs.
 */
export class TerminalSession implements AgentDriver {
  readonly kind = 'terminal' as const;
  readonly screen: ScreenModel;
  private readonly listeners: AgentEventListener[] = [];
  private readonly clock: Clock;
  private readonly detector: PromptDetector | null;
  /** Stopped by us: text sent now would go to a closed terminal. */
  private stopped = false;
  private readonly menuKeys: ScreenVocabulary['menuKeys'];
  private readonly interruptKeys: string | undefined;
  private lastTitle = '';
  private readonly typedElsewhere_: Array<(data: string) => void> = [];

  /** `screen`: a screen already holding what the terminal shows (a session host's, redrawn); default a fresh one. */
  constructor(
    readonly pty: TerminalPort,
    options: TerminalReadingOptions,
    screen?: ScreenModel,
  ) {
    this.clock = options.clock ?? systemClock;
    const { cols, rows } = pty.size;
    this.screen = screen ?? new ScreenModel({ cols, rows, clock: this.clock });
    const responder =
      options.autoAcceptStartup && options.startupPrompts?.length
        ? new StartupResponder(
            options.startupPrompts,
            this.clock,
            () => this.screen.snapshot().text,
            (keys) => this.pty.inject({ parts: [keys], gapMs: 0 }).then(() => undefined),
            (rule) =>
              this.emit({
                type: 'activity',
                phase: 'progress',
                text: `accepted start-up prompt: ${rule.name}`,
              }),
          )
        : null;
    this.menuKeys = options.vocabulary?.menuKeys ?? 'digit-enter';
    this.interruptKeys = options.vocabulary?.interruptKeys;
    this.detector = options.vocabulary ? this.createDetector(options) : null;
    pty.onData((chunk) => {
      this.emit({ type: 'output', data: chunk });
      this.screen.feed(chunk);
      this.detector?.onOutput();
    });
    this.screen.onSettled(() => {
      this.reportTitle();
      responder?.check();
      if (this.detector) {
        const { lines, cursor, title, alternateScreen } = this.screen.snapshot();
        this.detector.onSettled({ lines, cursor, title, alternateScreen });
      }
    });
    pty.onResize(({ cols: c, rows: r }) => this.screen.resize(c, r));
    pty.onExit((exit) => this.emit({ type: 'exit', exit }));
  }

  /** The agent in a PTY of this process. */
  static async start(options: TerminalSessionOptions): Promise<TerminalSession> {
    const clock = options.clock ?? systemClock;
    const port = await LocalPty.spawn({ ...options, clock });
    const session = new TerminalSession(port, options);
    port.settleWith((timeoutMs) => session.screen.nextSettle(timeoutMs));
    return session;
  }

  get size(): CellSize {
    return this.pty.size;
  }

  get pid(): number {
    return this.pty.pid;
  }

  get running(): boolean {
    return this.pty.running;
  }

  get exited(): Promise<ExitInfo> {
    return this.pty.exited;
  }

  on(listener: AgentEventListener): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  /**
   * A person's keystrokes: raw bytes, held back while an injection runs. Enter while a prompt is shown answers
   * it here, at the terminal: it is closed everywhere else.
   */
  userInput(data: string | Buffer): void {
    this.detector?.typed();
    if (data.includes('\r')) this.detector?.answeredAtTerminal();
    this.pty.userInput(data);
  }

  /**
   * Keys a person typed at another client of the terminal's session host (another terminal attached, a
   * browser): Enter there answers a shown prompt as it would here.
   */
  typedElsewhere(data: string): void {
    this.detector?.typed();
    if (data.includes('\r')) this.detector?.answeredAtTerminal();
    for (const listener of this.typedElsewhere_) listener(data);
  }

  /** Hears keys typed at other clients of the session host. */
  onTypedElsewhere(listener: (data: string) => void): void {
    this.typedElsewhere_.push(listener);
  }

  /**
   * Types a person's message as if pasted, then Enter (when `submit`), with the user's own keys paused
   * meanwhile. Lines go in as one paste where the program takes it, else as lines (the person sent lines).
   */
  async sendText(text: string, submit = true): Promise<void> {
    if (this.stopped) throw new Error('the agent has stopped');
    await this.screen.catchUp();
    const { body, submit: enter } = encodeTextInput(text, {
      bracketedPaste: this.screen.snapshot().bracketedPaste,
      submit,
      lineByLine: true,
    });
    const parts = [body, enter].filter((part) => part !== '');
    if (parts.length === 0) return;
    // A TUI takes a while to turn a multi-line paste into its input (Claude Code: "[Pasted text …]") and
    // drops an Enter that comes meanwhile: the Enter waits until the echo has settled.
    await this.pty.inject({
      parts,
      gapMs: SUBMIT_GAP_MS,
      settleBeforeLast: Boolean(body && enter && text.includes('\n')),
    });
  }

  /**
   * Types the answer to a prompt this session raised, with the user's keys held back, then lets the detector
   * ignore the echo. Only while the screen still shows that prompt: one that went away (answered at the
   * terminal, the program moved on) is never typed into. The screen is read here and the keys go out only if
   * the program wrote nothing since (the PTY may be in another process: a session host). `once` (the prompt's
   * id) types it at most once, even when asked again after a crash. Returns the keys typed (empty for `cancel`).
   */
  async answer(
    prompt: Pick<DetectedPrompt, 'key' | 'safeDefault'>,
    action: ReplyAction,
    _decidedBy?: string,
    once?: string,
  ): Promise<string> {
    const already = once !== undefined && (await this.pty.injected(once));
    for (let attempt = 1; ; attempt++) {
      await this.screen.catchUp();
      // Read at once, with nothing in between: the screen shows exactly `outputAt` bytes.
      const outputAt = this.pty.outputBytes;
      const screen = this.screen.snapshot();
      const keys = replyKeys(action, prompt, this.menuKeys, screen.bracketedPaste);
      if (keys === null) throw new Error('this prompt has no safe default to apply');
      if (already) return keys.join('');
      if (this.detector && !this.detector.stillShows(prompt.key, screen)) throw new PromptNotShown();
      const mark = this.detector?.outputMark();
      const result = await this.pty.inject({
        parts: keys,
        gapMs: SUBMIT_GAP_MS,
        ifOutputAt: outputAt,
        ...(once !== undefined ? { once } : {}),
      });
      if (result.typed) {
        this.detector?.answered(prompt.key, mark);
        return keys.join('');
      }
      if (attempt >= ANSWER_ATTEMPTS)
        throw new Error('the screen kept changing while the answer waited to be typed; nothing was typed');
      await this.screen.nextSettle(RETRY_SETTLE_MS);
    }
  }

  /** Whether the screen, caught up, still shows the prompt known by `key`. */
  async shows(key: string): Promise<boolean> {
    await this.screen.catchUp();
    return this.detector?.stillShows(key, this.screen.snapshot()) ?? false;
  }

  /**
   * A prompt another agent-bridge process raised on this very screen: the detector takes it as the current
   * one (it is not raised again, and is said gone when it leaves the screen); `answered`: its answer was typed
   * already (still drawn with nothing written since, it is that prompt, not the next ask).
   */
  takeOver(prompt: DetectedPrompt, answered = false): void {
    this.detector?.adopt(prompt);
    if (answered) this.detector?.answered(prompt.key);
  }

  /** Raw keys from agent-bridge itself (an answer to a prompt), gated against the user's typing. */
  async sendKeys(keys: string): Promise<void> {
    await this.pty.inject({ parts: [keys], gapMs: 0 });
  }

  /** The size this terminal should have (its person's terminal, the driving viewer's); the screen follows. */
  resize(cols: number, rows: number): void {
    this.pty.resize(cols, rows);
  }

  /** Stops what the agent is doing: its own interrupt keys where it has them, else Ctrl-C's SIGINT. */
  interrupt(): void {
    if (this.interruptKeys) void this.sendKeys(this.interruptKeys).catch(() => undefined);
    else this.pty.interrupt('SIGINT');
  }

  async snapshot(): Promise<ScreenSnapshot> {
    await this.screen.catchUp();
    return this.screen.snapshot();
  }

  async stop(): Promise<ExitInfo> {
    this.stopped = true;
    this.detector?.dispose();
    const exit = await this.pty.stop();
    this.screen.dispose();
    return exit;
  }

  private createDetector(options: TerminalReadingOptions): PromptDetector {
    const ttyPath = this.pty.ttyPath;
    const detectorOptions = {
      vocabulary: options.vocabulary!,
      clock: this.clock,
      ttyState: () => ttyWaitState(this.pty.pid, ttyPath),
      ...(options.stallMs !== undefined ? { stallMs: options.stallMs } : {}),
    };
    return new PromptDetector(detectorOptions, (signal) => this.onDetectorSignal(signal));
  }

  private onDetectorSignal(signal: DetectorSignal): void {
    if (signal.type === 'idle') this.emit({ type: 'status', state: signal.idle ? 'idle' : 'busy' });
    else if (signal.type === 'prompt') {
      // Words for it may span lines only where the program takes a bracketed paste.
      const multiline = this.screen.snapshot().bracketedPaste;
      this.emit({ type: 'prompt', prompt: { ...signal.prompt, multiline } });
    } else this.emit({ type: 'prompt_gone', key: signal.key });
  }

  private reportTitle(): void {
    const { title } = this.screen.snapshot();
    if (title === this.lastTitle) return;
    this.lastTitle = title;
    this.emit({ type: 'status', title });
  }

  private emit(event: AgentEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
