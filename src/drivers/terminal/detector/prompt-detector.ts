import { nextCallOr, type Clock, type TimerHandle } from '../../../core/clock.js';
import type { DetectedPrompt } from '../../../core/prompt.js';
import { truncateExcerpt } from '../../../core/prompt.js';
import { lineAsks } from '../../../core/prompt-headline.js';
import { detectGenericPrompt } from '../../../core/prompt-patterns.js';
import { redactSecrets } from '../../../core/redact.js';
import type { ScreenVocabulary, ScreenView } from '../../../core/screen-vocabulary.js';
import { lastContentRow, unbox } from '../../../core/screen-text.js';
import type { TtyWaitState } from './tty-blocked.js';

/** Silence that makes an unrecognised last line a low-confidence prompt (seed 004 §5.3). */
export const STALL_MS = 2_000;
/** Quiet time before asking the kernel whether the child blocks reading the terminal. */
export const TTY_PROBE_MS = 300;
/** After an injection the screen still shows the old prompt and the echo: ignore it this long. */
export const ECHO_SUPPRESSION_MS = 150;
/**
 * A person in the middle of a line (keys, no Enter yet): what shows is their line being edited, however slowly
 * the keys arrive (a phone, a loaded machine), so the screen is read only after this long a pause.
 */
export const LINE_EDIT_HOLD_MS = 1_000;
/**
 * A dialog missing from one settled screen may be a frame drawn in parts (a TUI on a busy machine clears,
 * then redraws the same dialog more than a settle later): it is gone at the next settle that still lacks it,
 * or once the screen stayed without it this long (no output comes to settle again).
 */
export const GONE_GRACE_MS = 250;

export type DetectorSignal =
  | { type: 'prompt'; prompt: DetectedPrompt }
  | { type: 'prompt_gone'; key: string }
  | { type: 'idle'; idle: boolean };

export interface DetectorOptions {
  vocabulary: ScreenVocabulary;
  clock: Clock;
  /** What the child is doing (Linux): reading its terminal is a medium-confidence prompt; sleeping, waiting
   * for a child or running means silence is work, not a question. */
  ttyState?: () => TtyWaitState;
  stallMs?: number;
}

/**
 * The tri-signal detector (seed 004 §5) on the rendered screen. It runs when output pauses, so its cost
 * follows the output's pauses, not its volume. Each prompt is raised once; when it leaves the screen the
 * detector says so (someone answered it at the terminal).
 */
export class PromptDetector {
  private current: DetectedPrompt | null = null;
  /**
   * The prompt just answered (by us, or by Enter at the terminal), and how much output had arrived then. The
   * same question still drawn with no output since is that prompt, still on screen; drawn again after the
   * program wrote something (it read the answer and asked again, even if the screen looks the same) it is
   * the next ask: a new prompt.
   */
  private lastAnswer: { key: string; output: number } | null = null;
  /** Output bytes seen so far (as the screen counts them). */
  private output = 0;
  private suppressUntil = 0;
  /** Until when a person is taken to be editing a line (no Enter yet): see LINE_EDIT_HOLD_MS. */
  private editingUntil = 0;
  /**
   * A person pressed Enter: the screen shows their line until the program answers it. Held at most
   * ECHO_SUPPRESSION_MS, and no longer once output came after it (the program's answer: a question it asks
   * right away is raised at once).
   */
  private entered: { until: number; output: number } | null = null;
  /** An answer is being typed: its dialog changes as keys land (a text field opens), which asks nothing new. */
  private typing = false;
  private idle: boolean | null = null;
  /** The key of the current dialog when the last settled screen lacked it (see GONE_GRACE_MS). */
  private missing: string | null = null;
  private lastScreen: ScreenView | null = null;
  /**
   * The output count when the last answer was typed, until the program answered it: output after it, then a
   * question raised, the program idle, or reading its terminal again (see whenAnswerSeen).
   */
  private unreadAnswer: number | null = null;
  private answerReaders: Array<() => void> = [];
  private timers: TimerHandle[] = [];
  private readonly stallMs: number;

  constructor(
    private readonly options: DetectorOptions,
    private readonly emit: (signal: DetectorSignal) => void,
  ) {
    this.stallMs = options.stallMs ?? STALL_MS;
  }

  /**
   * New output arrived (`outputAt`: the output bytes so far): pending silence checks no longer hold, and a
   * guessed prompt is over.
   */
  onOutput(outputAt: number): void {
    this.output = Math.max(this.output, outputAt);
    if (this.timers.length > 0) this.cancelTimers();
    if (this.current && (this.current.confidence === 'low' || this.current.confidence === 'medium'))
      this.clear();
  }

  /** The screen caught up with paused output: it shows `outputAt` bytes of it. */
  onSettled(screen: ScreenView, outputAt = this.output): void {
    this.output = Math.max(this.output, outputAt);
    this.lastScreen = screen;
    this.cancelTimers();
    if (this.typing) return;
    const now = this.options.clock.now();
    const entered = this.entered && this.output === this.entered.output ? this.entered.until : 0;
    const until = Math.max(this.suppressUntil, this.editingUntil, entered);
    if (now < until) {
      this.later(until - now, () => this.lastScreen && this.onSettled(this.lastScreen));
      return;
    }
    const { idle, found } = this.read(screen);
    this.reportIdle(idle && !found);
    if (found) return this.raise(found);
    if (this.current && this.current.confidence !== 'low' && this.current.confidence !== 'medium')
      this.dialogMissing(this.current.key);
    if (!idle) this.armSilenceChecks(screen);
  }

  /**
   * Resolves once the program answered the last answer typed (a question it asks next is raised by then), or
   * after `maxMs`: at once when no answer waits. A controller that types an answer and goes (approvals answer)
   * waits for this, so the question the program asks next is not left unrecorded, nobody watching.
   */
  whenAnswerSeen(maxMs: number): Promise<void> {
    if (this.unreadAnswer === null) return Promise.resolve();
    return nextCallOr(this.options.clock, this.answerReaders, maxMs);
  }

  /** The program asks, is idle or reads its terminal: if it wrote since the last answer, that answered it. */
  private answerSeen(): void {
    if (this.unreadAnswer === null || this.output <= this.unreadAnswer) return;
    this.unreadAnswer = null;
    for (const reader of this.answerReaders.splice(0)) reader();
  }

  /** The current dialog is not on the settled screen: gone now if it was not on the one before either. */
  private dialogMissing(key: string): void {
    if (this.missing === key) return this.clear();
    this.missing = key;
    this.later(GONE_GRACE_MS, () => this.current?.key === key && this.clear());
  }

  /**
   * An answer was typed (when `mark` output had arrived): ignore the echo, and do not raise the same prompt
   * again while it is still drawn and nothing was written since.
   */
  answered(key: string, mark = this.output): void {
    this.typing = false;
    this.lastAnswer = { key, output: mark };
    this.unreadAnswer = mark;
    this.suppressUntil = this.options.clock.now() + ECHO_SUPPRESSION_MS;
    if (this.current?.key === key) this.current = null;
    // The screen may have settled for good while the answer was typed: look at it once the echo is over.
    this.later(ECHO_SUPPRESSION_MS, () => this.lastScreen && this.onSettled(this.lastScreen));
  }

  /** An answer is about to be typed: what the screen shows meanwhile is its echo, until answered(). */
  answering(): void {
    this.typing = true;
    this.cancelTimers();
  }

  /** The answer about to be typed was not typed after all (the screen changed first): read the screen again. */
  notAnswering(): void {
    this.typing = false;
    this.later(0, () => this.lastScreen && this.onSettled(this.lastScreen));
  }

  /**
   * A person typed at the terminal: what shows now is their line being edited (a command that ends in
   * "(y/n)" as it is typed is not a question). The screen is read again once they paused: briefly after an
   * Enter (the program answers it), longer in the middle of a line.
   */
  typed(keys: string | Buffer): void {
    const now = this.options.clock.now();
    const entered = /[\r\n]/.test(keys.toString());
    this.editingUntil = entered ? 0 : now + LINE_EDIT_HOLD_MS;
    this.entered = entered ? { until: now + ECHO_SUPPRESSION_MS, output: this.output } : null;
  }

  /**
   * A person pressed Enter at the terminal (the agent's own, or a live view of it) while a prompt was shown:
   * they answered it there. It is gone for everyone else, even if the screen still looks the same.
   */
  answeredAtTerminal(): void {
    const current = this.current;
    if (!current) return;
    this.lastAnswer = { key: current.key, output: this.output };
    this.current = null;
    this.emit({ type: 'prompt_gone', key: current.key });
  }

  /**
   * A prompt raised before this detector existed (by another agent-bridge process, over the same screen) and
   * still shown: it is the current one, not raised again; it is gone when the screen no longer shows it.
   */
  adopt(prompt: DetectedPrompt): void {
    this.current = prompt;
    this.lastAnswer = null;
  }

  /**
   * Is the prompt `key` still what the screen shows? Checked on the caught-up screen right before an answer
   * is typed: a prompt that went away (answered at the terminal, the program moved on) is never typed into.
   */
  stillShows(key: string, screen: ScreenView): boolean {
    return this.showing(key, screen) !== null;
  }

  /** The prompt `key` as the screen shows it now (its highlight may have moved), or null when it is gone. */
  showing(key: string, screen: ScreenView): DetectedPrompt | null {
    const { idle, found } = this.read(screen);
    if (found) return found.key === key ? found : null;
    const unknown = idle ? null : unknownPrompt(screen, 'low');
    return unknown?.key === key ? unknown : null;
  }

  /** What the screen shows now: the agent's own dialog or a prompt the patterns know, or null. */
  dialogOn(screen: ScreenView): DetectedPrompt | null {
    return this.read(screen).found;
  }

  private read(screen: ScreenView): { idle: boolean; found: DetectedPrompt | null } {
    const vocabulary = this.options.vocabulary;
    const own = vocabulary.detect?.(screen) ?? null;
    // A full-screen program at rest (vim, less) waits for keys as its way of working: idle, never asking,
    // unless the agent's own vocabulary knows a dialog there, or the agent itself draws there (Copilot CLI):
    // then its input box says when it is idle. No patterns, no silence, no tty-read guess.
    if (screen.alternateScreen) {
      const atRest = vocabulary.fullScreen ? (vocabulary.isIdle?.(screen) ?? true) : true;
      return { idle: !own && atRest, found: own };
    }
    const idle = vocabulary.isIdle?.(screen) ?? false;
    return { idle, found: own ?? (idle ? null : detectGenericPrompt(screen)) };
  }

  dispose(): void {
    this.cancelTimers();
    for (const reader of this.answerReaders.splice(0)) reader();
  }

  private raise(found: DetectedPrompt): void {
    this.missing = null;
    if (found.key === this.current?.key) return;
    if (found.key === this.lastAnswer?.key && this.output === this.lastAnswer.output) return;
    this.lastAnswer = null;
    if (this.current) this.emit({ type: 'prompt_gone', key: this.current.key });
    this.current = found;
    this.emit({ type: 'prompt', prompt: found });
    this.answerSeen();
  }

  private clear(): void {
    this.missing = null;
    this.lastAnswer = null;
    if (!this.current) return;
    const key = this.current.key;
    this.current = null;
    this.emit({ type: 'prompt_gone', key });
  }

  private reportIdle(idle: boolean): void {
    if (idle) this.answerSeen();
    if (idle === this.idle) return;
    this.idle = idle;
    this.emit({ type: 'idle', idle });
  }

  private armSilenceChecks(screen: ScreenView): void {
    const probe = this.options.ttyState;
    // An agent's TUI reads its terminal all the time, working or not (Codex has a thread blocked on it): a
    // read says nothing there, its own vocabulary does.
    const tuiReads = Boolean(this.options.vocabulary.detect);
    if (probe && !tuiReads)
      this.later(TTY_PROBE_MS, () => {
        if (probe() !== 'reading') return;
        this.raiseUnknown(screen, 'medium');
        this.answerSeen();
      });
    this.later(this.stallMs, () => {
      // A build sleeping in make, a sleep, a busy compiler: quiet, but not asking.
      if (probe?.() === 'not-reading') return;
      this.raiseUnknown(screen, 'low');
    });
  }

  /** Medium or low confidence: the kind is unknown, so a person is asked what to do (ambiguity protocol). */
  private raiseUnknown(screen: ScreenView, confidence: 'medium' | 'low'): void {
    if (this.current) return;
    const bottom = lastContentRow(screen.lines);
    if (bottom < 0) return;
    // An agent whose vocabulary knows its input box alone says when it is idle (a TUI parks its cursor anywhere).
    const { detect, isIdle } = this.options.vocabulary;
    if (!(detect && isIdle) && waitsForNextLine(screen, bottom)) return this.reportIdle(true);
    const prompt = unknownPrompt(screen, confidence);
    if (prompt) this.raise(prompt);
  }

  private later(ms: number, fn: () => void): void {
    this.timers.push(this.options.clock.after(ms, fn));
  }

  private cancelTimers(): void {
    for (const timer of this.timers) timer.cancel();
    this.timers = [];
  }
}

/** The screen's last lines as a prompt of unknown kind; its key is what stillShows() compares. */
function unknownPrompt(screen: ScreenView, confidence: 'medium' | 'low'): DetectedPrompt | null {
  const bottom = lastContentRow(screen.lines);
  if (bottom < 0) return null;
  const tail = screen.lines
    .slice(Math.max(0, bottom - 5), bottom + 1)
    .map(unbox)
    .join('\n')
    .trim();
  if (!tail) return null;
  const text = redactSecrets(tail);
  return {
    kind: 'unknown',
    confidence,
    excerpt: truncateExcerpt(text),
    detail: text,
    choices: [],
    safeDefault: null,
    key: `unknown|${text}`,
  };
}

/**
 * A line-oriented program (a chat agent, a REPL without a prompt of its own) that ended its output with a
 * newline and reads the next line is idle, not asking: the cursor waits at the start of the empty line right
 * under the last text, nothing is drawn below it (a TUI draws its frame there), and that text asks nothing.
 */
function waitsForNextLine(screen: ScreenView, bottom: number): boolean {
  const { x, y } = screen.cursor;
  if (x !== 0 || y !== bottom + 1) return false;
  const last = screen.lines[bottom] ?? '';
  return !lineAsks(last) && !PROMPT_END.test(last);
}

/**
 * A line that ends like a prompt of its own (`>`, as in `input>`), besides one that asks (`?`, `Name:`,
 * `Continue [y/N]`, `(yes/no)`: see lineAsks). Output that merely ends in brackets asks nothing (`got:
 * [hello]`, `[1/3]`).
 */
const PROMPT_END = />\s*$/;
