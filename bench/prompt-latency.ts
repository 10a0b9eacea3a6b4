/**
 * prompt-latency: a prompt's last byte → the prompt event → its row stored → the chat's sendPrompt, through
 * the whole path `run --approve-from <chat>` wires in one process (AgentSession with the store, a
 * ChannelRelay on its own store connection poked by the session's observers, an in-process channel), after
 * realistic output: none, 1 MiB of many short lines, a 1 MiB TUI redraw, and one 1 MiB line.
 */
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type * as Registry from '../src/agents/registry.js';
import type { AgentEvent } from '../src/core/events.js';
import type * as ProcessModule from '../src/cli/process.js';
import type * as ClockModule from '../src/core/clock.js';
import type * as SessionModule from '../src/sessions/agent-session.js';
import type * as RelayModule from '../src/sessions/channel-relay.js';
import type * as StoreModule from '../src/store/store.js';
import { RecordingChannel } from './recording-channel.js';
import { fmt, importDist, latencyRows, percentile, sleep, withTimeout } from './support.js';
import type { Benchmark, BenchContext, Result } from './types.js';
import { atMost, formatBytes, info, measurement, MiB } from './util.js';

const PROMPTS = { quick: 8, full: 40 };
const WARMUPS = 3;
const TARGET_MS = 20;
const WAIT_MS = 10_000;
/** Quiet time after each trial, so the next starts from a settled screen (and < the 300 ms tty probe). */
const GAP_MS = 40;
const BURST_BYTES = MiB;
const PROMPT_END = '(y/n) ';

/** What comes before the prompt: the trigger letter, and the file the child prints first (none for `p`). */
const WORKLOADS = [
  { key: 'p', name: 'plain prompt', file: null },
  { key: 'l', name: 'after 1 MiB of short lines', file: 'lines.txt' },
  { key: 't', name: 'after a 1 MiB TUI redraw', file: 'tui.txt' },
  { key: 'b', name: 'after one 1 MiB line', file: 'line.txt' },
] as const;
type Key = (typeof WORKLOADS)[number]['key'];

/**
 * bash with echo off (the first byte back is the child's own): `e` answers "pong"; a workload's letter
 * prints its file (cat), then two lines and the prompt in one printf, and reads the answer.
 */
function child(dir: string): string {
  return `
stty -echo
i=0
while IFS= read -r t; do
  i=$((i+1))
  if [ "$t" = e ]; then printf 'pong %d\\n' "$i"; continue; fi
  case "$t" in l) cat '${dir}/lines.txt';; t) cat '${dir}/tui.txt';; b) cat '${dir}/line.txt';; esac
  printf '\\033[0m\\nstep %d: compiling module %d\\nstep %d: linking\\nContinue %d? (y/n) ' "$i" "$i" "$i" "$i"
  IFS= read -r a
  printf '\\nanswer %s\\n' "$a"
done
`;
}

/** The three bursts, each exactly BURST_BYTES: short build-log lines, a full-screen redraw, one long line. */
function writeBursts(dir: string): void {
  let lines = '';
  for (let i = 0; lines.length < BURST_BYTES; i++) lines += `[${i}] compiling src/module-${i % 97}.ts ok\n`;
  writeFileSync(path.join(dir, 'lines.txt'), lines.slice(0, BURST_BYTES));
  let tui = '\x1b[?25l';
  for (let frame = 0; tui.length < BURST_BYTES; frame++) {
    for (let row = 1; row <= 23; row++) {
      const text = `frame ${frame} row ${row} ${'█'.repeat(row % 7)}`.padEnd(70, frame % 2 ? '=' : '.');
      tui += `\x1b[${row};1H\x1b[38;5;${(row + frame) % 256}m${text}\x1b[0m\x1b[K`;
    }
  }
  writeFileSync(path.join(dir, 'tui.txt'), Buffer.from(tui).subarray(0, BURST_BYTES));
  writeFileSync(path.join(dir, 'line.txt'), 'x'.repeat(BURST_BYTES));
}

interface Trial {
  /** Trigger written -> first output event (echo trials only). */
  echo?: number;
  /** From the output event holding the prompt's last byte, ms. */
  event?: number;
  stored?: number;
  chat?: number;
}

/** Watches one trial: the output events, the prompt event, the row stored (observer) and the chat's send. */
class Probe {
  private tail = '';
  private startedAt = 0;
  private lastByteAt = 0;
  private trial: Trial = {};
  private echo = false;
  private resolve: ((trial: Trial) => void) | null = null;

  constructor(private readonly write: (data: string) => void) {}

  onEvent(event: AgentEvent): void {
    if (!this.resolve) return;
    const now = performance.now();
    if (event.type === 'output') {
      if (this.echo) return this.finish({ echo: now - this.startedAt });
      this.tail = (this.tail + Buffer.from(event.data).toString('latin1')).slice(-64);
      if (this.tail.endsWith(PROMPT_END)) this.lastByteAt = now;
    } else if (event.type === 'prompt' && this.lastByteAt > 0) this.mark('event', now);
  }

  stored(): void {
    if (this.resolve && this.lastByteAt > 0) this.mark('stored', performance.now());
  }

  chat(): void {
    if (this.resolve && this.lastByteAt > 0) this.mark('chat', performance.now());
  }

  run(trigger: 'e' | Key): Promise<Trial> {
    this.tail = '';
    this.lastByteAt = 0;
    this.trial = {};
    this.echo = trigger === 'e';
    const done = new Promise<Trial>((resolve) => (this.resolve = resolve));
    this.startedAt = performance.now();
    this.write(`${trigger}\r`);
    return withTimeout(done, WAIT_MS, trigger === 'e' ? 'the echo' : 'the prompt in the chat').finally(() => {
      this.resolve = null;
    });
  }

  private mark(what: 'event' | 'stored' | 'chat', at: number): void {
    this.trial[what] ??= at - this.lastByteAt;
    if (this.trial.event !== undefined && this.trial.stored !== undefined && this.trial.chat !== undefined)
      this.finish(this.trial);
  }

  private finish(trial: Trial): void {
    this.resolve?.(trial);
    this.resolve = null;
  }
}

async function startPath(ctx: BenchContext, dir: string, probe: { current: Probe | null }) {
  const { agents } = await importDist<typeof Registry>(ctx.root, 'agents/registry.js');
  const { isProcessAlive } = await importDist<typeof ProcessModule>(ctx.root, 'cli/process.js');
  const { systemClock } = await importDist<typeof ClockModule>(ctx.root, 'core/clock.js');
  const { AgentSession } = await importDist<typeof SessionModule>(ctx.root, 'sessions/agent-session.js');
  const { ChannelRelay } = await importDist<typeof RelayModule>(ctx.root, 'sessions/channel-relay.js');
  const { openStore } = await importDist<typeof StoreModule>(ctx.root, 'store/store.js');
  const home = await ctx.home();
  const store = openStore({ dir: home });
  const channelStore = openStore({ dir: home });
  const channel = new RecordingChannel('bench', (sent) => sent.kind === 'prompt' && probe.current?.chat());
  const relay = new ChannelRelay({
    channel,
    store: channelStore,
    clock: systemClock,
    chats: [{ chatId: 'bench-chat' }],
    allowedUsers: new Set(['bench']),
    outputThreshold: 1500,
    isAlive: isProcessAlive,
  });
  if (!(await relay.start())) throw new Error('the relay did not get the channel');
  const session = await AgentSession.start({
    spec: agents.shell,
    command: 'bash',
    args: ['--noprofile', '--norc', '-c', child(dir)],
    cwd: dir,
    env: process.env,
    cols: 120,
    rows: 40,
    autoTrust: false,
    record: true,
    store,
    clock: systemClock,
    approveFrom: ['bench'],
    observers: [{ opened: () => (probe.current?.stored(), relay.poke()), closed: () => relay.poke() }],
  });
  return {
    session,
    async stop() {
      const exit = await session.terminal!.stop();
      await session.finish(exit, 'terminated');
      await relay.stop();
      channelStore.close();
      store.close();
    },
  };
}

async function run(ctx: BenchContext): Promise<Result> {
  const count = ctx.reps ?? (ctx.quick ? PROMPTS.quick : PROMPTS.full);
  const result: Result = {
    name: 'prompt-latency',
    params: { prompts: count, warmups: WARMUPS, burstBytes: BURST_BYTES, cols: 120, rows: 40 },
    measurements: [],
    ratios: [],
    notes: [
      'AgentSession (shell agent, recording on, the store) + ChannelRelay (own store connection, poked by the ' +
        "session's observers, as `run --approve-from` wires them) + an in-process channel, in the bench process",
      "every time is from the output event holding the prompt's last byte; echo = trigger -> first output",
    ],
    problems: [],
  };
  const dir = await mkdtemp(path.join(tmpdir(), 'agent-bridge-bench-prompt-'));
  writeBursts(dir);
  const holder: { current: Probe | null } = { current: null };
  const path_ = await startPath(ctx, dir, holder);
  const probe = new Probe((data) => path_.session.terminal!.userInput(data));
  holder.current = probe;
  path_.session.on((event) => probe.onEvent(event));
  const echo: number[] = [];
  const trials = new Map<Key, Trial[]>(WORKLOADS.map((w) => [w.key, []]));
  const skippedBefore = path_.session.terminal!.screen.snapshot().skippedBytes;
  try {
    for (let i = 0; i < WARMUPS; i++) await probe.run('e').then(() => sleep(GAP_MS));
    for (let i = 0; i < count; i++) {
      // Rotated, so no kind of trial always follows the same other.
      const keys = (['e', ...WORKLOADS.map((w) => w.key)] as const).map(
        (_, k, all) => all[(k + i) % all.length]!,
      );
      for (const key of keys) {
        const trial = await probe.run(key);
        if (key === 'e') echo.push(trial.echo!);
        else {
          trials.get(key)!.push(trial);
          path_.session.terminal!.userInput('y\r');
        }
        await sleep(GAP_MS);
      }
      if (i % 10 === 9) ctx.log(`  ${i + 1} of ${count} rounds`);
    }
  } catch (error) {
    result.problems.push(`${(error as Error).message} (after ${echo.length} rounds)`);
  } finally {
    const skipped = path_.session.terminal!.screen.snapshot().skippedBytes - skippedBefore;
    result.params.skippedBytes = skipped;
    result.notes.push(`bytes the screen model skipped in all trials: ${formatBytes(skipped)}`);
    await path_.stop();
    await rm(dir, { recursive: true, force: true });
  }
  report(result, echo, trials);
  return result;
}

function report(result: Result, echo: number[], trials: Map<Key, Trial[]>): void {
  result.measurements.push(measurement('echo: trigger -> first output', echo));
  for (const workload of WORKLOADS) {
    const all = trials.get(workload.key)!;
    const pick = (what: keyof Trial) => all.flatMap((t) => (t[what] === undefined ? [] : [t[what]!]));
    const event = pick('event');
    const stored = pick('stored');
    const chat = pick('chat');
    result.measurements.push(
      measurement(`${workload.name}: last byte -> prompt event`, event),
      measurement(`${workload.name}: last byte -> row stored`, stored),
      measurement(`${workload.name}: last byte -> chat sendPrompt`, chat),
    );
    result.ratios.push(
      atMost(`${workload.name}: last byte -> row stored p50 (ms)`, percentile(stored, 50), TARGET_MS),
      ...latencyRows(`${workload.name}: last byte -> chat`, chat, TARGET_MS),
      info(`${workload.name}: last byte -> row stored p90 (ms)`, percentile(stored, 90)),
      info(`${workload.name}: last byte -> prompt event p50 (ms)`, percentile(event, 50)),
    );
  }
  result.notes.push(
    `echo p50 ${fmt(percentile(echo, 50))} ms; ` +
      WORKLOADS.map((w) => {
        const stored = trials.get(w.key)!.flatMap((t) => (t.stored === undefined ? [] : [t.stored]));
        return `${w.name}: row stored p50 ${fmt(percentile(stored, 50))} ms`;
      }).join('; '),
  );
}

export const promptLatency: Benchmark = {
  name: 'prompt-latency',
  description: "a prompt's last byte -> prompt event -> row stored -> chat, after realistic output",
  run,
};
