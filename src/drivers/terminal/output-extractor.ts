import { StreamRedactor } from '../../core/redact.js';
import type { ScreenModel } from './screen.js';

/** Where an extractor reads the lines a program finished. */
type FinishedLines = Pick<ScreenModel, 'takeFinishedLines'>;

/**
 * Clean text from a terminal program for chat: the lines it has finished (the cursor moved past them), read
 * from the rendered screen and scrollback, so colours, cursor moves and redraws never reach a chat. The echo
 * of what was typed on someone's behalf is left out. Full-screen programs (alternate screen) give nothing:
 * they speak through their hooks or protocol instead. Secrets are redacted on whole (unwrapped) lines, and a
 * private key block printed across several reads stays hidden until its end.
 */
/** What may stand before echoed input on its line: nothing, or a prompt ending in $ > # % ❯ ›. */
const ECHO_PREFIX = /^(?:.*[$>#%❯›])?\s*$/;

export class OutputExtractor {
  private readonly typed: string[] = [];
  private readonly redactor = new StreamRedactor();

  /** `screen`: where finished lines are read (null: they come numbered from a session host, see clean()). */
  constructor(private readonly screen: FinishedLines | null) {}

  /** Remembers input typed into the program, so its echo is not reported as output. */
  typedLine(text: string): void {
    this.typed.push(text.trim());
    if (this.typed.length > 20) this.typed.shift();
  }

  /** The finished lines since the last call, joined; '' when there are none. */
  take(): string {
    return this.screen ? this.clean(this.screen.takeFinishedLines()) : '';
  }

  /** Finished lines read elsewhere (a session host), as take() gives them: echo left out, secrets redacted. */
  clean(finished: string[]): string {
    const lines = finished.filter((line) => !this.isEcho(line));
    while (lines.length > 0 && !lines[0]!.trim()) lines.shift();
    while (lines.length > 0 && !lines.at(-1)!.trim()) lines.pop();
    return lines.length > 0 ? this.redactor.redact(lines.join('\n')) : '';
  }

  /**
   * The terminal's echo of typed text: the text alone, or after a shell-like prompt (`$ `, `> `, `# `...).
   * An answer that merely ends with the same words ("web got: m3") is output, not echo.
   */
  private isEcho(line: string): boolean {
    const trimmed = line.trim();
    if (!trimmed) return false;
    const at = this.typed.findIndex(
      (typed) => typed && trimmed.endsWith(typed) && ECHO_PREFIX.test(trimmed.slice(0, -typed.length)),
    );
    if (at < 0) return false;
    this.typed.splice(at, 1);
    return true;
  }
}
