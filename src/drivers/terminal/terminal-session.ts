import { systemClock, type Clock } from '../../core/clock.js';
import type { AgentEvent, AgentEventListener, ExitInfo } from '../../core/events.js';
import type { DetectedPrompt, ReplyAction } from '../../core/prompt.js';
import type { ScreenVocabulary } from '../../core/screen-vocabulary.js';
import type { AgentDriver } from '../driver.js';
import type { StartupPromptRule } from '../../core/startup-rules.js';
import { PromptDetector, type DetectorSignal } from './detector/prompt-detector.js';
import { ttyWaitState } from './detector/tty-blocked.js';
import { keysEndingTheTurn, replyKeys } from './reply-keys.js';
import { InputGate } from './input-gate.js';
import { encodeTextInput } from './input.js';
import { PtyProcess, type PtySpawnOptions } from './pty-process.js';
import { ScreenModel, type ScreenSnapshot } from './screen.js';
import { StartupResponder } from './startup-responder.js';

/**
 * Gap between a text body and its Enter, and between the keys of an answer, unless the agent's vocabulary says
 * otherwise: Claude Code acts on an Enter that arrives in the same write too early.
 */
export const SUBMIT_GAP_MS = 30;
/** The longest wait for a program to redraw after one key of an answer before the next key is typed. */
export const KEY_ECHO_MAX_MS = 400;
/** After a key, quiet this long means the redraw is over (a dialog closing, the input box coming back)... */
export const KEY_QUIET_MS = 100;
/** ...and this is the longest wait for it (a spinner never stops). */
export const KEY_SETTLE_MAX_MS = 800;
/** The longest wait for the input box after a choice that ends the turn, before the words that follow it. */
const INPUT_BOX_MAX_MS = 3_000;
/** The longest wait for a multi-line paste's echo before its Enter. */
const PASTE_SETTLE_MAX_MS = 1_000;

/** The prompt left the screen before its answer could be typed: nothing was typed. */
export class PromptNotShown extends Error {
  override name = 'PromptNotShown';
  constructor() {
    super(
      'the prompt is no longer on screen (answered at the terminal, or the program moved on); nothing was typed',
    );
  }
}

export interface TerminalSessionOptions extends PtySpawnOptions {
  /** Start-up questions answered automatically (folder trust); empty to answer none. */
  startupPrompts?: StartupPromptRule[];
  autoAcceptStartup?: boolean;
  /** The agent's screen vocabulary; prompts are detected when given. */
  vocabulary?: ScreenVocabulary;
  /** Silence before an unrecognised screen becomes a low-confidence prompt (default 2 s). */
  stallMs?: number;
}

/**
 * The terminal driver for one agent: its PTY, the screen a person would see, and an input gate. Emits the
 * shared event stream (output, status, exit). Agent quirks arrive as data (start-up rules), never as ifs.
 */
export class TerminalSession implements AgentDriver {
  readonly kind = 'terminal' as const;
  readonly screen: ScreenModel;
  readonly gate: InputGate;
  private readonly listeners: AgentEventListener[] = [];
  private readonly clock: Clock;
  private readonly detector: PromptDetector | null;
  /** Stopped by us: text sent now would go to a closed terminal. */
  private stopped = false;
  private readonly menuKeys: ScreenVocabulary['menuKeys'];
  private readonly interruptKeys: string[] | undefined;
  private readonly keyGapMs: number;
  private readonly vocabulary: ScreenVocabulary | undefined;
  private lastTitle = '';
  private lastOutputAt = 0;

  private constructor(
    readonly pty: PtyProcess,
    options: TerminalSessionOptions,
  ) {
    this.clock = options.clock ?? systemClock;
    const { cols, rows } = pty.size;
    this.screen = new ScreenModel({ cols, rows, clock: this.clock });
    this.gate = new InputGate((data) => this.pty.write(data));
    const responder =
      options.autoAcceptStartup && options.startupPrompts?.length
        ? new StartupResponder(
            options.startupPrompts,
            this.clock,
            () => this.screen.snapshot().text,
            (keys) => this.gate.exclusive(() => this.pty.write(keys)),
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
    this.keyGapMs = options.vocabulary?.keyGapMs ?? SUBMIT_GAP_MS;
    this.vocabulary = options.vocabulary;
    this.detector = options.vocabulary ? this.createDetector(options) : null;
    pty.onData((chunk) => {
      this.lastOutputAt = this.clock.now();
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
    pty.onExit((exit) => this.emit({ type: 'exit', exit }));
  }

  static async start(options: TerminalSessionOptions): Promise<TerminalSession> {
    const pty = await PtyProcess.spawn(options);
    return new TerminalSession(pty, options);
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
    if (data.includes('\r')) this.detector?.answeredAtTerminal();
    this.gate.user(data);
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
    await this.gate.exclusive(async () => {
      if (body) await this.pty.write(body);
      if (enter) {
        // A TUI takes a while to turn a multi-line paste into its input (Claude Code: "[Pasted text …]") and
        // drops an Enter that comes meanwhile: wait until the echo has settled.
        if (text.includes('\n')) await this.screen.nextSettle(PASTE_SETTLE_MAX_MS);
        await this.clock.sleep(this.keyGapMs);
        await this.pty.write(enter);
      }
    });
  }

  /**
   * Types the answer to a prompt this session raised, with the user's keys held back, then lets the detector
   * ignore the echo. Only while the screen still shows that prompt: one that went away (answered at the
   * terminal, the program moved on) is never typed into. Returns the keys typed (empty for `cancel`).
   */
  async answer(prompt: Pick<DetectedPrompt, 'key' | 'safeDefault'>, action: ReplyAction): Promise<string> {
    return this.gate.exclusive(async () => {
      await this.screen.catchUp();
      const screen = this.screen.snapshot();
      // The dialog as it stands now: its highlight may have moved since it was raised (arrows start there).
      const shown = this.detector ? this.detector.showing(prompt.key, screen) : null;
      if (this.detector && !shown) throw new PromptNotShown();
      const current = { kind: 'unknown' as const, choices: [], ...shown, safeDefault: prompt.safeDefault };
      const keys = replyKeys(action, current, this.menuKeys, screen.bracketedPaste);
      if (keys === null) throw new Error('this prompt has no safe default to apply');
      // Words that go in as the next message wait for the input box the choice brings back.
      const turnEnds = keysEndingTheTurn(action, current, this.menuKeys);
      const mark = this.detector?.outputMark();
      this.detector?.answering();
      try {
        await this.writeKeys(keys.slice(0, turnEnds || keys.length));
        if (turnEnds) {
          await this.untilInputBox(INPUT_BOX_MAX_MS);
          await this.clock.sleep(this.keyGapMs);
          await this.writeKeys(keys.slice(turnEnds));
        }
      } finally {
        this.detector?.answered(prompt.key, mark);
      }
      return keys.join('');
    });
  }

  /** Raw keys from agent-bridge itself (an answer to a prompt), gated against the user's typing. */
  sendKeys(keys: string): Promise<void> {
    return this.gate.exclusive(() => this.pty.write(keys));
  }

  /** Keys typed one write each, as an answer is typed, with the user's own keys held back meanwhile. */
  typeKeys(keys: readonly string[]): Promise<void> {
    return this.gate.exclusive(() => this.writeKeys(keys));
  }

  /**
   * One write per key, each once the program has redrawn for the one before (bounded) and at least the key gap
   * later: a TUI that reads several keys at once mishandles them (Claude Code acts on an Enter read with an
   * arrow before the arrow; Gemini CLI drops words typed while its dialog closes), and a busy machine delays
   * the reading, not the writing.
   */
  private async writeKeys(keys: readonly string[], awaitRedraw = true): Promise<void> {
    let echo: Promise<void> = Promise.resolve();
    for (const [i, key] of keys.entries()) {
      if (i > 0) await (awaitRedraw ? this.redrawn(echo) : this.clock.sleep(this.keyGapMs));
      echo = this.screen.nextSettle(KEY_ECHO_MAX_MS);
      await this.pty.write(key);
    }
  }

  /** The agent is back at its input box (its vocabulary says how that looks), or `maxMs` passed. */
  private async untilInputBox(maxMs: number): Promise<void> {
    const isIdle = this.vocabulary?.isIdle;
    if (!isIdle) return;
    const deadline = this.clock.now() + maxMs;
    for (;;) {
      await this.screen.catchUp();
      const left = deadline - this.clock.now();
      if (isIdle(this.screen.snapshot()) || left <= 0) return;
      await this.screen.nextSettle(left);
    }
  }

  /** The key gap has passed, the key's echo came (or did not, in time), and the output has gone quiet. */
  private async redrawn(echo: Promise<void>): Promise<void> {
    await Promise.all([this.clock.sleep(this.keyGapMs), echo]);
    const deadline = this.clock.now() + KEY_SETTLE_MAX_MS;
    for (;;) {
      const quiet = this.clock.now() - this.lastOutputAt;
      if (quiet >= KEY_QUIET_MS || this.clock.now() >= deadline) return;
      await this.clock.sleep(Math.min(KEY_QUIET_MS - quiet, deadline - this.clock.now()));
    }
  }

  resize(cols: number, rows: number): void {
    this.pty.resize(cols, rows);
    this.screen.resize(cols, rows);
  }

  /**
   * Stops what the agent is doing: its own interrupt keys where it has them (a TUI that reads its terminal raw
   * exits on a SIGINT it did not expect: Codex, Gemini CLI and Copilot CLI do), else Ctrl-C's SIGINT. Never
   * while a dialog is shown whose Esc exits the agent (a trust prompt): there is nothing running to stop.
   */
  interrupt(): void {
    if (!this.interruptKeys) return this.pty.interrupt('SIGINT');
    const shown = this.detector?.dialogOn(this.screen.snapshot());
    if (shown?.dialog?.keys.escape === 'exits') return;
    // Only the key gap between them: Copilot CLI takes Esc twice as one only within a short time.
    const keys = this.interruptKeys;
    void this.gate.exclusive(() => this.writeKeys(keys, false)).catch(() => undefined);
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

  private createDetector(options: TerminalSessionOptions): PromptDetector {
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
