import { systemClock, type Clock } from '../../core/clock.js';
import type { AgentEvent, AgentEventListener, ExitInfo } from '../../core/events.js';
import type { DetectedPrompt, ReplyAction } from '../../core/prompt.js';
import type { ScreenVocabulary } from '../../core/screen-vocabulary.js';
import { withoutSpaces } from '../../core/screen-text.js';
import type { AgentDriver } from '../driver.js';
import type { StartupPromptRule } from '../../core/startup-rules.js';
import { PromptDetector, type DetectorSignal } from './detector/prompt-detector.js';
import { ttyWaitState } from './detector/tty-blocked.js';
import {
  choiceWords,
  KeysRefused,
  keysEndingTheTurn,
  nextBoxFlip,
  replyKeys,
  wordsInPlace,
  type BoxFlip,
} from './reply-keys.js';
import { encodeTextInput } from './input.js';
import { typeInterrupt } from './interrupt-keys.js';
import { asShownNow, flipShown, type AnswerBoxes, type RaisedPrompt } from './prompt-as-shown.js';
import { submitMessage, submitWordsInPlace, type ScreenWatch, type SubmitContext } from './message-submit.js';
import type { PtySpawnOptions } from './pty-process.js';
import { RETRY_SETTLE_MS, ScreenModel, type ScreenSnapshot, type TerminalScreen } from './screen.js';
import { StartupResponder } from './startup-responder.js';
import { LocalPty, type CellSize, type TerminalPort } from './terminal-port.js';

/**
 * Gap between a text body and its Enter, and between the keys of an answer, unless the agent's vocabulary says
 * otherwise: Claude Code acts on an Enter that arrives in the same write too early.
 */
export const SUBMIT_GAP_MS = 30;
/** The longest wait for the input box after a choice that ends the turn, before the words that follow it. */
const INPUT_BOX_MAX_MS = 3_000;
/** How long a controller that goes after typing an answer waits for the reply (the program may work on). */
const ANSWER_SEEN_MAX_MS = 3_000;
/**
 * How often an answer is tried again when the program wrote something between the look at its screen and the
 * keys (a spinner, a clock): each try reads the screen afresh.
 */
const ANSWER_ATTEMPTS = 20;
/** Settles an answer waits for a prompt it does not see on screen before it says the prompt went. */
const NOT_SHOWN_SETTLES = 2;

/** How long a box of a multi-select answer may take to show flipped (a busy machine's redraw) before the answer stops. */
const BOX_SHOWN_MAX_MS = 5_000;
/** A box of a multi-select answer was typed, and the dialog never showed it flipped. */
const BOX_NOT_SHOWN = (box: number) =>
  `the dialog did not show box ${box} ticked or unticked as typed; the rest of the answer was not typed`;

const BOXES_UNSTABLE = 'the boxes did not stay as typed (one changes others); the answer was not submitted';

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
  readonly screen: TerminalScreen;
  private readonly listeners: AgentEventListener[] = [];
  private readonly clock: Clock;
  private readonly detector: PromptDetector | null;
  /** Stopped by us: text sent now would go to a closed terminal. */
  private stopped = false;
  private readonly menuKeys: ScreenVocabulary['menuKeys'];
  private readonly interruptKeys: string[] | undefined;
  private readonly keyGapMs: number;
  /** The last message typed and submitted here: the agent may put it back in its box (restoresMessage). */
  private lastMessage: string | null = null;
  private readonly vocabulary: ScreenVocabulary | undefined;
  private lastTitle = '';
  private readonly typedElsewhere_: Array<(data: string) => void> = [];
  /** Look at each settled screen while a message's keys go out (submitMessage). */
  private readonly settleWatchers = new Set<() => void>();

  /**
   * `screen`: the screen to read, already showing what the terminal shows (its session host's own, or one
   * redrawn from it); default a fresh one, fed here.
   */
  constructor(
    readonly pty: TerminalPort,
    options: TerminalReadingOptions,
    screen?: TerminalScreen,
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
    this.keyGapMs = options.vocabulary?.keyGapMs ?? SUBMIT_GAP_MS;
    this.vocabulary = options.vocabulary;
    this.detector = options.vocabulary ? this.createDetector(options) : null;
    pty.onData((chunk) => {
      this.emit({ type: 'output', data: chunk });
      this.screen.feed(chunk);
    });
    this.screen.onOutput((outputAt) => this.detector?.onOutput(outputAt));
    this.screen.onSettled(() => {
      this.reportTitle();
      responder?.check();
      for (const watch of this.settleWatchers) watch();
      if (this.detector) {
        const { lines, cursor, title, alternateScreen, outputAt } = this.screen.snapshot();
        this.detector.onSettled({ lines, cursor, title, alternateScreen }, outputAt);
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
    this.detector?.typed(data);
    if (data.includes('\r')) this.detector?.answeredAtTerminal();
    this.pty.userInput(data);
  }

  /**
   * Keys a person typed at another client of the terminal's session host (another terminal attached, a
   * browser): Enter there answers a shown prompt as it would here.
   */
  typedElsewhere(data: string): void {
    this.detector?.typed(data);
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
    if (enter) await this.clearRestoredMessage(text);
    // A TUI takes a while to turn a multi-line paste into its input (Claude Code: "[Pasted text …]") and
    // drops an Enter that comes meanwhile: the Enter waits until the echo has settled.
    const typed = () =>
      this.pty.inject({
        parts,
        gapMs: this.keyGapMs,
        settleBeforeLast: Boolean(body && enter && text.includes('\n')),
      });
    const holdsUnsent = this.vocabulary?.holdsUnsent;
    if (body && enter && holdsUnsent)
      await submitMessage(this.submitContext(holdsUnsent), typed, text, enter);
    else await typed();
  }

  private submitContext(holdsUnsent: SubmitContext['holdsUnsent']): SubmitContext {
    return {
      ...this.screenWatch(),
      holdsUnsent,
      ...(this.vocabulary?.isIdle ? { isIdle: this.vocabulary.isIdle } : {}),
      watchSettles: (watch) => {
        this.settleWatchers.add(watch);
        return () => this.settleWatchers.delete(watch);
      },
    };
  }

  /** What typing Enter again after a look at the screen needs of this session. */
  private screenWatch(): ScreenWatch {
    return {
      screen: this.screen,
      pty: this.pty,
      untilScreen: (check, maxMs) => this.untilScreen(check, maxMs),
      stopped: () => this.stopped,
    };
  }

  /**
   * Types the answer to a prompt this session raised, with the user's keys held back, then lets the detector
   * ignore the echo. Only while the screen still shows that prompt: one that went away (answered at the
   * terminal, the program moved on) is never typed into; a screen without it is looked at again once it
   * settles (a frame read half drawn), at most NOT_SHOWN_SETTLES times. The screen is read here and the keys
   * go out only if the program wrote nothing since (the PTY may be in another process: a session host).
   * `once` (the prompt's id) types it at most once, even when asked again after a crash. Ticks go a box at a
   * time, each once the screen shows the one before (nextBoxFlip). Returns the keys typed (empty for
   * `cancel`).
   */
  async answer(
    prompt: Pick<DetectedPrompt, 'key'> & RaisedPrompt,
    action: ReplyAction,
    _decidedBy?: string,
    once?: string,
  ): Promise<string> {
    const already = once !== undefined && (await this.pty.injected(once));
    /** A multi-select answer's boxes typed so far (a box at a time), the last one, and when it must show. */
    const boxes: AnswerBoxes = { typed: [], last: null, shownBy: 0, flips: 0, answering: false };
    try {
      return await this.answerWhenShown(prompt, action, already, once, boxes);
    } catch (error) {
      // Boxes were flipped and the answer stopped before its end: the dialog is read as any screen again.
      if (boxes.answering) this.detector?.notAnswering();
      throw error;
    }
  }

  private async answerWhenShown(
    prompt: Pick<DetectedPrompt, 'key'> & RaisedPrompt,
    action: ReplyAction,
    already: boolean,
    once: string | undefined,
    boxes: AnswerBoxes,
  ): Promise<string> {
    let unseen = 0;
    for (let attempt = 1; ; attempt++) {
      await this.screen.catchUp();
      // The screen shows exactly `outputAt` bytes: the keys go out only if nothing was written since.
      const screen = this.screen.snapshot();
      const outputAt = screen.outputAt;
      // The dialog as it stands now: its highlight may have moved since it was raised (arrows start there).
      const shown = this.detector ? this.detector.showing(prompt.key, screen) : null;
      const current = asShownNow(prompt, shown);
      const keys = this.keysFor(action, current, screen);
      // Typed already by a controller before this one (it crashed mid-way): never again.
      if (already) return keys instanceof KeysRefused ? '' : (keys?.join('') ?? '');
      if (boxes.last && !flipShown(boxes.last, current)) {
        // The box typed last is not drawn flipped yet: nothing more goes until it is.
        if (this.clock.now() >= boxes.shownBy) throw new Error(BOX_NOT_SHOWN(boxes.last.box));
        await this.screen.nextSettle(RETRY_SETTLE_MS);
        continue;
      }
      if (keys instanceof KeysRefused) {
        // Not what the dialog takes as it is drawn now (still being drawn, or redrawn): look again in a moment.
        if (attempt >= ANSWER_ATTEMPTS) throw keys;
        await this.screen.nextSettle(RETRY_SETTLE_MS);
        continue;
      }
      if (this.detector && !shown) {
        // Read mid-redraw (a busy machine draws a frame in parts)? The screen once it settles says.
        if (unseen++ >= NOT_SHOWN_SETTLES) throw new PromptNotShown();
        await this.screen.nextSettle(RETRY_SETTLE_MS);
        continue;
      }
      if (keys === null) throw new Error('this prompt has no safe default to apply');
      const flip = this.detector ? nextBoxFlip(action, current) : null;
      boxes.answering ||= flip !== null;
      const typed = flip
        ? await this.typeBoxFlip(flip, outputAt)
        : await this.typeAnswer(prompt.key, action, current, keys, outputAt, once);
      if (typed && flip) {
        boxes.typed.push(...flip.keys);
        boxes.last = flip;
        boxes.shownBy = this.clock.now() + BOX_SHOWN_MAX_MS;
        // Each box flips once; more means a box flips others (an "All" option): never typed in a loop.
        if (++boxes.flips > current.choices.length) throw new Error(BOXES_UNSTABLE);
        attempt = 0;
        continue;
      }
      if (typed) return [...boxes.typed, ...keys].join('');
      if (attempt >= ANSWER_ATTEMPTS)
        throw new Error('the screen kept changing while the answer waited to be typed; nothing was typed');
      await this.screen.nextSettle(RETRY_SETTLE_MS);
    }
  }

  /** Types all of an answer's keys, unless the program wrote something since `outputAt`; whether they were typed. */
  private async typeAnswer(
    key: string,
    action: ReplyAction,
    current: ReturnType<typeof asShownNow>,
    keys: string[],
    outputAt: number,
    once: string | undefined,
  ): Promise<boolean> {
    // Words that go in as the next message wait for the input box the choice brings back.
    const turnEnds = keysEndingTheTurn(action, current, this.menuKeys);
    this.detector?.answering();
    let typed = false;
    try {
      const result = await this.pty.inject({
        parts: keys.slice(0, turnEnds || keys.length),
        gapMs: this.keyGapMs,
        awaitRedraw: true,
        ifOutputAt: outputAt,
        ...(once !== undefined ? { once } : {}),
      });
      typed = result.typed;
      if (typed && turnEnds) {
        await this.untilInputBox(INPUT_BOX_MAX_MS);
        await this.clock.sleep(this.keyGapMs);
        await this.typeNextMessage(action, current, keys.slice(turnEnds));
      }
      const words = typed ? wordsInPlace(action, current) : null;
      if (words !== null) await this.submitInPlace(current.kind, words);
    } finally {
      if (typed) this.detector?.answered(key, outputAt);
      else this.detector?.notAnswering();
    }
    return typed;
  }

  /**
   * The words of a choice that go in as the next message (Gemini's "No, suggest changes"), typed as a message
   * is: an Enter the busy agent missed, the words left in its input box, is typed again (submitMessage).
   */
  private async typeNextMessage(
    action: ReplyAction,
    current: ReturnType<typeof asShownNow>,
    keys: string[],
  ): Promise<void> {
    const words = choiceWords(action, current);
    if (words) await this.clearRestoredMessage(words);
    const holdsUnsent = this.vocabulary?.holdsUnsent;
    const typed = () => this.pty.inject({ parts: [...keys], gapMs: this.keyGapMs, awaitRedraw: true });
    if (words && holdsUnsent && keys.length > 1)
      await submitMessage(this.submitContext(holdsUnsent), typed, words, keys.at(-1)!);
    else await typed();
  }

  /**
   * Before `next` is typed as a message: a box holding just the last message typed here (the agent put it back
   * when its turn was cancelled) is emptied, so that `next` goes alone; any other text in it is left as it is.
   * `next` becomes the last message.
   */
  private async clearRestoredMessage(next: string): Promise<void> {
    const restores = this.vocabulary?.restoresMessage;
    const last = this.lastMessage;
    this.lastMessage = next;
    if (!restores || last === null) return;
    const restored = (screen: ScreenSnapshot) => {
      const text = restores.boxText(screen);
      return !!text && withoutSpaces(text) === withoutSpaces(last);
    };
    await this.screen.catchUp();
    const screen = this.screen.snapshot();
    if (!restored(screen)) return;
    // Typed only onto the screen judged: had the agent written since, its box may hold something else now.
    const { typed } = await this.pty.inject({
      parts: restores.clearKeys(last),
      gapMs: this.keyGapMs,
      awaitRedraw: true,
      ifOutputAt: screen.outputAt,
    });
    if (typed) await this.untilScreen((now) => !restored(now), INPUT_BOX_MAX_MS);
  }

  /** Words typed into the dialog's field: their Enter typed again while a dialog of `kind` still shows them. */
  private async submitInPlace(kind: DetectedPrompt['kind'], words: string): Promise<void> {
    const detect = this.vocabulary?.detect;
    if (!detect) return;
    const fieldHolds = (screen: ScreenSnapshot, head: string) => {
      const shown = detect(screen);
      return shown?.kind === kind && shown.choices.some((c) => withoutSpaces(c.label).includes(head));
    };
    const dialogUp = (screen: ScreenSnapshot) => detect(screen)?.kind === kind;
    await submitWordsInPlace(this.screenWatch(), fieldHolds, dialogUp, words);
  }

  /**
   * Flips one box of a multi-select answer, unless the program wrote since `outputAt`. The detector stays in
   * its answering state until the answer ends (the dialog redrawn with a tick is not a new prompt).
   */
  private async typeBoxFlip(flip: BoxFlip, outputAt: number): Promise<boolean> {
    this.detector?.answering();
    const parts = flip.keys;
    const result = await this.pty.inject({
      parts,
      gapMs: this.keyGapMs,
      awaitRedraw: true,
      ifOutputAt: outputAt,
    });
    return result.typed;
  }

  private keysFor(
    action: ReplyAction,
    prompt: Parameters<typeof replyKeys>[1],
    screen: ScreenSnapshot,
  ): string[] | null | KeysRefused {
    try {
      return replyKeys(action, prompt, this.menuKeys, screen.bracketedPaste);
    } catch (error) {
      if (error instanceof KeysRefused) return error;
      throw error;
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

  /** The program replied to the last answer typed, or `maxMs` passed (see whenAnswerSeen). */
  answerSeen(maxMs = ANSWER_SEEN_MAX_MS): Promise<void> {
    return this.detector?.whenAnswerSeen(maxMs) ?? Promise.resolve();
  }

  /** Raw keys from agent-bridge itself (an answer to a prompt), gated against the user's typing. */
  async sendKeys(keys: string): Promise<void> {
    await this.pty.inject({ parts: [keys], gapMs: 0 });
  }

  /**
   * Keys typed one write each, as an answer is typed, with the user's own keys held back meanwhile: each once
   * the program has redrawn for the one before (a TUI that reads several keys at once mishandles them).
   */
  async typeKeys(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.pty.inject({ parts: [...keys], gapMs: this.keyGapMs, awaitRedraw: true });
  }

  /** The agent is back at its input box (its vocabulary says how that looks), or `maxMs` passed. */
  private async untilInputBox(maxMs: number): Promise<void> {
    const isIdle = this.vocabulary?.isIdle;
    if (isIdle) await this.untilScreen(isIdle, maxMs);
  }

  /** The caught-up screen shows what `check` looks for, now or at a settle within `maxMs`; whether it did. */
  async untilScreen(check: (screen: ScreenSnapshot) => boolean, maxMs: number): Promise<boolean> {
    const deadline = this.clock.now() + maxMs;
    for (;;) {
      await this.screen.catchUp();
      if (check(this.screen.snapshot())) return true;
      const left = deadline - this.clock.now();
      if (left <= 0) return false;
      await this.screen.nextSettle(left);
    }
  }

  /** The size this terminal should have (its person's terminal, the driving viewer's); the screen follows. */
  resize(cols: number, rows: number): void {
    this.pty.resize(cols, rows);
  }

  /**
   * Stops what the agent is doing: its own interrupt keys where it has them (a TUI that reads its terminal raw
   * exits on a SIGINT it did not expect: Codex, Gemini CLI and Copilot CLI do), else Ctrl-C's SIGINT. Never
   * while a dialog is shown whose Esc exits the agent (a trust prompt): there is nothing running to stop.
   * Keys of more than one press go again while the agent still works (typeInterrupt); resolves once done.
   */
  interrupt(): Promise<void> {
    if (!this.interruptKeys) return Promise.resolve(this.pty.interrupt('SIGINT'));
    const shown = this.detector?.dialogOn(this.screen.snapshot());
    if (shown?.dialog?.keys.escape === 'exits') return Promise.resolve();
    const isIdle = this.vocabulary?.isIdle;
    const stopped = (screen: ScreenSnapshot) => isIdle?.(screen) || Boolean(this.detector?.dialogOn(screen));
    return typeInterrupt({
      port: this.pty,
      keys: this.interruptKeys,
      gapMs: this.keyGapMs,
      // Without a way to see the input box, the keys go once.
      stoppedWithin: (maxMs) => (isIdle ? this.untilScreen(stopped, maxMs) : Promise.resolve(true)),
      ending: () => this.stopped || !this.pty.running,
    }).catch(() => undefined);
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
