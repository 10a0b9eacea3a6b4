import type * as ShellScreens from '../src/agents/shell/screens.js';
import type { AgentEvent } from '../src/core/events.js';
import type * as SessionModule from '../src/drivers/terminal/terminal-session.js';
import { fmt, importDist, latencyRows, percentile, sleep, withTimeout } from './support.js';
import type { Benchmark, BenchContext, Result } from './types.js';
import { atMost, measurement } from './util.js';

const PROMPTS = { quick: 10, full: 50 };
const WARMUPS = 3;
const TARGET_MS = 20;
const WAIT_MS = 5_000;
/** Quiet time after each trial, so the next starts from a settled screen (and < the 300 ms tty probe). */
const GAP_MS = 40;
const BURST_BYTES = 1 << 20;

/**
 * The child, in bash with echo off (so the first byte back is the child's own): on "e" it answers "pong";
 * on "p" it prints two lines and the prompt in one printf (one write), then reads the answer; on "b" the
 * same after a 1 MiB burst of output.
 */
const CHILD = `
stty -echo
i=0
while IFS= read -r t; do
  i=$((i+1))
  if [ "$t" = e ]; then printf 'pong %d\\n' "$i"; continue; fi
  if [ "$t" = b ]; then head -c ${BURST_BYTES} /dev/zero | tr '\\0' x; printf '\\n'; fi
  printf 'step %d: compiling module %d\\nstep %d: linking\\nContinue %d? (y/n) ' "$i" "$i" "$i" "$i"
  IFS= read -r a
  printf '\\nanswer %s\\n' "$a"
done
`;

interface Trial {
  /** Trigger written -> first output event (echo) or prompt event. */
  fromTrigger: number;
  /** Output event holding the prompt's last byte -> prompt event (prompt trials only). */
  fromLastByte?: number;
}

class Probe {
  private text = '';
  private lastByteAt = 0;
  private firstOutputAt = 0;
  private resolve: ((trial: Trial) => void) | null = null;
  private startedAt = 0;
  private mode: 'echo' | 'prompt' = 'echo';

  constructor(private readonly write: (data: string) => void) {}

  onEvent(event: AgentEvent): void {
    const now = performance.now();
    if (!this.resolve) return;
    if (event.type === 'output') {
      if (this.firstOutputAt === 0) this.firstOutputAt = now;
      // Keep only the tail: a burst trial brings 1 MiB.
      this.text = (this.text + Buffer.from(event.data).toString('latin1')).slice(-64);
      if (this.text.endsWith('(y/n) ')) this.lastByteAt = now;
      if (this.mode === 'echo') this.finish({ fromTrigger: now - this.startedAt });
    } else if (event.type === 'prompt' && this.mode === 'prompt' && event.prompt.confidence === 'high') {
      const trial: Trial = { fromTrigger: now - this.startedAt };
      if (this.lastByteAt > 0) trial.fromLastByte = now - this.lastByteAt;
      this.finish(trial);
    }
  }

  run(trigger: 'e' | 'p' | 'b'): Promise<Trial> {
    this.text = '';
    this.lastByteAt = 0;
    this.firstOutputAt = 0;
    this.mode = trigger === 'e' ? 'echo' : 'prompt';
    const done = new Promise<Trial>((resolve) => (this.resolve = resolve));
    this.startedAt = performance.now();
    this.write(`${trigger}\r`);
    return withTimeout(done, WAIT_MS, trigger === 'e' ? 'the echo' : 'the prompt event').finally(() => {
      this.resolve = null;
    });
  }

  private finish(trial: Trial): void {
    this.resolve?.(trial);
    this.resolve = null;
  }
}

async function run(ctx: BenchContext): Promise<Result> {
  const count = ctx.reps ?? (ctx.quick ? PROMPTS.quick : PROMPTS.full);
  const result: Result = {
    name: 'prompt-latency',
    params: { prompts: count, warmups: WARMUPS, burstBytes: BURST_BYTES },
    measurements: [],
    ratios: [],
    notes: [
      'TerminalSession (shell vocabulary) in the bench process; bash child with echo off, triggered by a line',
      'echo = trigger -> first output event; prompt = trigger -> high-confidence prompt event; interleaved',
      "last byte -> prompt: from the output event that holds the prompt's last byte (no subtraction)",
    ],
    problems: [],
  };
  const { TerminalSession } = await importDist<typeof SessionModule>(
    ctx.root,
    'drivers/terminal/terminal-session.js',
  );
  const { shellScreens } = await importDist<typeof ShellScreens>(ctx.root, 'agents/shell/screens.js');
  const session = await TerminalSession.start({
    command: 'bash',
    args: ['--noprofile', '--norc', '-c', CHILD],
    cwd: ctx.root,
    env: process.env,
    vocabulary: shellScreens,
  });
  const probe = new Probe((data) => session.userInput(data));
  session.on((event) => probe.onEvent(event));
  const echo: number[] = [];
  const prompt: Trial[] = [];
  const burst: Trial[] = [];
  try {
    for (let i = 0; i < WARMUPS; i++) await probe.run('e').then(() => sleep(GAP_MS));
    for (let i = 0; i < count; i++) {
      // Rotated, so no kind of trial always follows the same other.
      const kinds = (['e', 'p', 'b'] as const).map((_, k, all) => all[(k + i) % all.length]!);
      for (const kind of kinds) {
        const trial = await probe.run(kind);
        if (kind === 'e') echo.push(trial.fromTrigger);
        else (kind === 'p' ? prompt : burst).push(trial);
        if (kind !== 'e') session.userInput('y\r');
        await sleep(GAP_MS);
      }
      if (i % 10 === 9) ctx.log(`  ${i + 1} of ${count} prompts`);
    }
  } catch (error) {
    result.problems.push(`${(error as Error).message} (after ${prompt.length} prompts)`);
  } finally {
    await session.stop();
  }
  report(result, echo, prompt, burst);
  return result;
}

function report(result: Result, echo: number[], prompt: Trial[], burst: Trial[]): void {
  const fromTrigger = prompt.map((t) => t.fromTrigger);
  const direct = prompt.flatMap((t) => (t.fromLastByte === undefined ? [] : [t.fromLastByte]));
  const afterBurst = burst.flatMap((t) => (t.fromLastByte === undefined ? [] : [t.fromLastByte]));
  if (direct.length < prompt.length || afterBurst.length < burst.length)
    result.problems.push("a prompt event came before the output event holding the prompt's last byte");
  result.measurements.push(
    measurement('echo: trigger -> first output (baseline)', echo),
    measurement('prompt: trigger -> prompt event', fromTrigger),
    measurement('prompt: last byte -> prompt event', direct),
    measurement('after a 1 MiB burst: last byte -> prompt event', afterBurst),
  );
  const difference = percentile(fromTrigger, 50) - percentile(echo, 50);
  result.ratios.push(
    atMost('prompt p50 - echo p50 (ms)', difference, TARGET_MS),
    ...latencyRows('trigger -> prompt', fromTrigger),
    ...latencyRows('last byte -> prompt', direct, TARGET_MS),
    ...latencyRows('after a burst, last byte -> prompt', afterBurst),
  );
  result.notes.push(
    `echo p50 ${fmt(percentile(echo, 50))} ms; trigger -> prompt p50 ${fmt(percentile(fromTrigger, 50))} ms, ` +
      `p90 ${fmt(percentile(fromTrigger, 90))}, p99 ${fmt(percentile(fromTrigger, 99))}; difference ${fmt(difference)} ms`,
  );
}

export const promptLatency: Benchmark = {
  name: 'prompt-latency',
  description: "time from a prompt's last byte to the prompt event (screen settle + detector)",
  run,
};
