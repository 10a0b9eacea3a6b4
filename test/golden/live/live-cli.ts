// One real agent CLI under agent-bridge's own terminal driver (PTY, screen model, the agent's vocabulary), as
// the live golden test drives it: wait for a dialog, type the golden keys one write at a time, watch the result.
import { getAgent } from '../../../src/agents/registry.js';
import type { AgentId } from '../../../src/agents/types.js';
import { parseReply, type DetectedPrompt } from '../../../src/core/prompt.js';
import { PromptNotShown, TerminalSession } from '../../../src/drivers/terminal/terminal-session.js';

export const COLS = 120;
export const ROWS = 40;

export interface LiveCliOptions {
  agent: AgentId;
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class LiveCli {
  /** The prompt on screen now, as the driver raised it; null once it is gone. */
  prompt: DetectedPrompt | null = null;
  idle = false;
  exited = false;
  /** Every prompt raised, in order. */
  readonly raised: DetectedPrompt[] = [];
  private lastOutputAt = Date.now();

  private constructor(
    readonly agent: AgentId,
    readonly session: TerminalSession,
  ) {
    session.on((event) => {
      if (event.type === 'prompt') {
        this.prompt = event.prompt;
        this.raised.push(event.prompt);
      } else if (event.type === 'prompt_gone' && this.prompt?.key === event.key) this.prompt = null;
      else if (event.type === 'status' && event.state) this.idle = event.state === 'idle';
      else if (event.type === 'exit') this.exited = true;
      else if (event.type === 'output') this.lastOutputAt = Date.now();
    });
  }

  static async start(options: LiveCliOptions): Promise<LiveCli> {
    const spec = getAgent(options.agent);
    const session = await TerminalSession.start({
      command: options.command,
      args: options.args,
      cwd: options.cwd,
      env: options.env,
      cols: COLS,
      rows: ROWS,
      vocabulary: spec.screens,
      startupPrompts: [],
      autoAcceptStartup: false,
      // Nothing here waits on a guessed prompt: only the agent's own dialogs count.
      stallMs: 600_000,
    });
    return new LiveCli(options.agent, session);
  }

  async screen(): Promise<string> {
    return (await this.session.snapshot()).text;
  }

  /** Waits until `check` holds, re-checking on every screen change (and every 50 ms); says what it saw. */
  async until<T>(what: string, check: () => T | Promise<T>, timeoutMs = 20_000): Promise<NonNullable<T>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await check();
      if (value) return value as NonNullable<T>;
      if (this.exited && !/exit/.test(what))
        throw new Error(`${this.agent} exited while waiting for ${what}`);
      if (Date.now() > deadline)
        throw new Error(
          `${this.agent}: timed out after ${timeoutMs} ms waiting for ${what} (idle: ${this.idle}, prompt: ${this.prompt?.kind ?? 'none'}); screen:\n${await this.screen()}`,
        );
      await sleep(50);
    }
  }

  /**
   * A prompt (of `kind`) that has stopped changing: a dialog being drawn may be raised before it takes keys
   * (or with part of its options).
   */
  async waitForDialog(kind?: string, timeoutMs = 20_000, after?: string): Promise<DetectedPrompt> {
    // `after`: the dialog just answered. A busy CLI may draw it once more before it shows the next one (it
    // wrote something, so the driver raises it again): that is not the dialog waited for.
    const next = () => (this.prompt && this.prompt.key !== after ? this.prompt : null);
    let prompt = await this.until(
      `a ${kind ?? ''} prompt`,
      () => (next() && (!kind || this.prompt!.kind === kind) ? this.prompt : null),
      timeoutMs,
    );
    for (;;) {
      await sleep(250);
      if (this.prompt?.key === prompt.key) return prompt;
      prompt = await this.until('the dialog to settle', next, timeoutMs);
    }
  }

  /**
   * Idle at its input box with no dialog shown, and quiet a moment (a CLI that just drew its box may still be
   * starting: Gemini CLI drops an Enter typed then).
   */
  async waitForIdle(timeoutMs = 20_000): Promise<void> {
    await this.until(
      'the input box',
      () => this.idle && !this.prompt && Date.now() - this.lastOutputAt > 300,
      timeoutMs,
    );
  }

  /** No output for `ms`: a CLI that just started may draw its box before it reads keys (Codex, Gemini CLI). */
  async waitForQuiet(ms: number, timeoutMs = 20_000): Promise<void> {
    await this.until(`${ms} ms without output`, () => Date.now() - this.lastOutputAt > ms, timeoutMs);
  }

  async waitForText(pattern: RegExp, timeoutMs = 20_000): Promise<void> {
    await this.until(String(pattern), async () => pattern.test(await this.screen()), timeoutMs);
  }

  /** A message typed at the input box, as agent-bridge sends one. */
  async send(text: string): Promise<void> {
    this.prompt = null;
    await this.session.sendText(text);
  }

  /** The keys, one write each, as the terminal driver types an answer. */
  async type(keys: readonly string[]): Promise<void> {
    this.prompt = null;
    await this.session.typeKeys(keys);
  }

  /**
   * Answers the prompt as agent-bridge does (the driver works out the keys from the screen). A dialog that was
   * still being drawn when it was raised is drawn anew (the driver types nothing into it): answered as it is.
   */
  async answer(prompt: DetectedPrompt, reply: string): Promise<string> {
    this.prompt = null;
    try {
      return await this.session.answer(prompt, parseReply(reply, prompt));
    } catch (error) {
      if (!(error instanceof PromptNotShown)) throw error;
      // The driver raised the redrawn dialog already (it raises each once): answer the latest one raised.
      await sleep(250);
      const again = this.raised.at(-1)!;
      if (again.key === prompt.key || again.kind !== prompt.kind) throw error;
      this.prompt = null;
      return this.session.answer(again, parseReply(reply, again));
    }
  }

  stop(): Promise<unknown> {
    return this.session.stop();
  }
}
