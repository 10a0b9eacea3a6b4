import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type * as StoreModule from '../src/store/store.js';
import { startFakeDiscord, type FakeDiscord } from '../test/fakes/discord/server.js';
import { buttonId, hasButtons, OWNER } from '../test/support/discord-setup.js';
import {
  BASELINE_CHANNEL,
  crossProcessHost,
  GatewayBaseline,
  inProcessHost,
  Probes,
  PROMPT_CHANNEL,
  PROMPT_SPACING_MS,
  RestBaseline,
  tokenIn,
  writeRunConfig,
} from './discord-latency-runners.js';
import { fmt, importDist, percentile, wallClockSkew, wallNow, waitUntil } from './support.js';
import type { BenchSession, Host } from './telegram-runners.js';
import type { Benchmark, BenchContext, Ratio, Result } from './types.js';
import { atMost, hostLogTail, info, measurement, median } from './util.js';

const PROMPTS = { quick: 5, full: 40 };
/** ChannelRelay lets 10 answers per session per minute through: a session never gets more prompts. */
const PER_SESSION = 10;
const SEND_TARGET_MS = 50;
const ANSWER_TARGET_MS = 20;
const WAIT_MS = 15_000;
const WARM_UPS = 3;
/** Each set-up's prompts are `build-<letter><session>-<n>?`. */
const LABELS: Record<string, string> = { 'in-process': 'i', 'store bus': 'b', 'serve + run': 'x' };

interface Mode {
  name: string;
  fake: FakeDiscord;
  host: Host;
  /** The data folder (serve + run: AGENT_BRIDGE_HOME), where the prompt rows are read back. */
  dir: string;
  /** Prompt row created in the store -> the fake holds the message with buttons, by prompt token. */
  row: Map<string, number>;
  /** Wall-clock moment the fake held each prompt's message, by token. */
  heldAt: Map<string, number>;
  /** Prompt's last byte -> the fake holds the message with buttons. */
  send: number[];
  /** Button press -> `read` returns the answer in the child. */
  answer: number[];
  /** Wall-clock moments of each press and of the child's `read` returning, by token. */
  pressed: Map<string, number>;
  read: Map<string, number>;
  /** In-process only: stamps from inside agent-bridge. */
  probes?: Probes;
  /** Why the set-up was given up (serve + run: `run` refuses `--approve-from discord`). */
  skipped?: string;
  stopped?: boolean;
}

interface Baselines {
  rest: RestBaseline;
  gateway: GatewayBaseline;
  /** REST.post -> the fake holds the message; and -> the reply is back (the round trip). */
  restToFake: number[];
  restRoundTrip: number[];
  /** userPressesButton -> a bare client's interactionCreate. */
  dispatch: number[];
}

/** One of each baseline, in turn order `k` (rotated, so neither always runs first). */
async function sampleBaselines(base: Baselines, like: FakeDiscord['messages'][number], k: number) {
  const rest = async () => {
    const sample = await base.rest.sample(like);
    base.restToFake.push(sample.toFake);
    base.restRoundTrip.push(sample.roundTrip);
  };
  const gateway = async () => void base.dispatch.push(await base.gateway.sample());
  for (const step of k % 2 === 0 ? [rest, gateway] : [gateway, rest]) await step();
}

/**
 * One session of `count` prompts: each is sent with buttons, pressed "Yes", and read by the child; after its
 * outcome edit, one sample of each baseline. The child lingers 0.5 s after its last answer, or exits at once
 * when `exitAtOnce` (what a script often does).
 */
async function drive(
  mode: Mode,
  base: Baselines,
  label: string,
  count: number,
  exitAtOnce: boolean,
  result: Result,
) {
  const session = await mode.host.session(label, count, exitAtOnce ? 0 : 0.5);
  try {
    await answerAll(mode, base, session, label, count, result);
  } catch (error) {
    session.abort();
    throw error;
  }
  await session.done;
}

async function answerAll(
  mode: Mode,
  base: Baselines,
  session: BenchSession,
  label: string,
  count: number,
  result: Result,
) {
  const { fake } = mode;
  let failed: Error | null = null;
  // A session that ends early fails the waits at once instead of after their timeouts.
  const ended = session.done.then(() => {
    throw new Error('the session ended before all its prompts were answered');
  });
  ended.catch((error: Error) => (failed = error));
  const checked =
    <T>(get: () => T | undefined) =>
    () => {
      const value = get();
      if (value === undefined && failed) throw failed;
      return value;
    };
  for (let i = 1; i <= count; i++) {
    const token = `build-${label}-${i}?`;
    // Stamped in the predicate: the fake re-checks it synchronously when the message is created.
    const sent = fake.waitForMessage((m) => {
      const match = m.fromBot && hasButtons(m) && m.content.includes(token);
      if (match && !mode.heldAt.has(token)) mode.heldAt.set(token, wallNow());
      return match;
    }, WAIT_MS);
    sent.catch(() => undefined); // when `ended` wins the race, the wait still times out later
    const message = await Promise.race([sent, ended]);
    mode.probes?.expect(message.id, token);
    const pressedAt = wallNow();
    fake.userPressesButton({ userId: OWNER, messageId: message.id, customId: buttonId(message, 'Yes') });
    const promptAt = await waitUntil(
      checked(() => session.clock.promptAt.get(i)),
      WAIT_MS,
      `prompt ${i}'s time`,
    );
    const got = await waitUntil(
      checked(() => session.clock.answerAt.get(i)),
      WAIT_MS,
      `answer ${i} read`,
    );
    mode.send.push(mode.heldAt.get(token)! - promptAt);
    // A wrong answer has no latency: it is a problem, and not a sample (it may even come before the press).
    if (got.answer === 'y') mode.answer.push(got.at - pressedAt);
    else result.problems.push(`${mode.name}, ${token}: the child read "${got.answer}", not "y"`);
    mode.pressed.set(token, pressedAt);
    mode.read.set(token, got.at);
    // The outcome edit (150 ms after the keys) goes first, so the baselines do not queue behind it.
    await fake.waitFor(() => (fake.message(message.id)?.edits ?? 0) > 0, WAIT_MS, `${token}'s outcome edit`);
    await sampleBaselines(base, message, i);
  }
}

/** Serve + run: the prompt rows' created_at (whole ms, Date.now) from the store serve and run share. */
async function rowTimesFromStore(root: string, mode: Mode): Promise<void> {
  const { openStore } = await importDist<typeof StoreModule>(root, 'store/store.js');
  const store = openStore({ dir: mode.dir });
  try {
    for (const record of store.prompts.recent(10_000)) {
      const token = tokenIn(record.detail || record.excerpt);
      const held = token === undefined ? undefined : mode.heldAt.get(token);
      if (token !== undefined && held !== undefined) mode.row.set(token, held - record.createdAt);
    }
  } finally {
    store.close();
  }
}

async function run(ctx: BenchContext): Promise<Result> {
  const count = ctx.reps ?? (ctx.quick ? PROMPTS.quick : PROMPTS.full);
  const result: Result = {
    name: 'discord-latency',
    params: { prompts: count, perSession: PER_SESSION, promptSpacingMs: PROMPT_SPACING_MS },
    measurements: [],
    ratios: [],
    notes: [
      'fake Discord (test/fakes/discord: REST + gateway on 127.0.0.1) in the bench process, real discord.js, ' +
        'real timers, one guild text channel',
      "row -> message = the prompt row created in the store (in-process, store bus: the coordinator's " +
        '"opened" observer; serve + run: created_at, whole ms) -> the fake holds the message with buttons',
      'in-process: the relay and the session poke each other (as `run --approve-from` wires them); store bus: ' +
        'the same pieces not told about each other, so they meet through the store as serve and run do ' +
        "(each process learns of the other's commits from the store's file notifications)",
      'send = prompt written by the child ($EPOCHREALTIME) -> the fake holds the message with buttons',
      'answer = userPressesButton -> the child\'s `read` returns "y" ($EPOCHREALTIME)',
      'baselines, one of each after every prompt (its outcome edit done), rotated: discord.js REST.post of ' +
        'the same content and buttons -> the fake holds it; userPressesButton -> a bare discord.js ' +
        "client's interactionCreate (on a fake of its own)",
      `prompts ${fmt(PROMPT_SPACING_MS / 1000)} s apart; at most ${PER_SESSION} per session ` +
        "(the relay's answer rate limit)",
    ],
    problems: [],
  };
  const dir = await mkdtemp(path.join(tmpdir(), 'agent-bridge-bench-dc-'));
  const channels = [
    { id: PROMPT_CHANNEL, name: 'prompts' },
    { id: BASELINE_CHANNEL, name: 'baseline' },
  ];
  const fakes: FakeDiscord[] = [];
  for (let i = 0; i < 4; i++) fakes.push(await startFakeDiscord({ channels }));
  const [inFake, busFake, crossFake, baseFake] = fakes as [
    FakeDiscord,
    FakeDiscord,
    FakeDiscord,
    FakeDiscord,
  ];
  const modes: Mode[] = [];
  const base: Baselines = {
    rest: new RestBaseline(baseFake),
    gateway: new GatewayBaseline(baseFake),
    restToFake: [],
    restRoundTrip: [],
    dispatch: [],
  };
  const blank = (name: string, fake: FakeDiscord, host: Host, folder: string): Mode => ({
    name,
    fake,
    host,
    dir: folder,
    row: new Map(),
    heldAt: new Map(),
    send: [],
    answer: [],
    pressed: new Map(),
    read: new Map(),
  });
  try {
    await base.gateway.start();
    const warm = { ...base, restToFake: [], restRoundTrip: [], dispatch: [] };
    const like = baseFake.messages.find((m) => m.fromBot)!;
    for (let k = 0; k < WARM_UPS; k++) await sampleBaselines(warm, like, k);
    for (const [name, fake, linked] of [
      ['in-process', inFake, true],
      ['store bus', busFake, false],
    ] as const) {
      const folder = await ctx.home();
      const probes = new Probes();
      const host = await inProcessHost(ctx.root, fake, folder, probes, linked);
      modes.push({ ...blank(name, fake, host, folder), probes });
    }
    const home = await ctx.home();
    writeRunConfig(home, crossFake);
    const crossHost = await crossProcessHost(ctx.root, crossFake, home);
    modes.push(blank('serve + run', crossFake, crossHost, home));
    const sessions = Math.ceil(count / PER_SESSION);
    for (let k = 0; k < sessions; k++) {
      const size = Math.min(PER_SESSION, count - k * PER_SESSION);
      // Interleaved, and rotated so no set-up always runs first.
      for (const mode of modes.map((_, i) => modes[(i + k) % modes.length]!)) {
        if (mode.skipped) continue;
        ctx.log(`  ${mode.name}: session ${k + 1} of ${sessions}, ${size} prompts`);
        // The last session of `run` exits right after its last answer: `run` must still end cleanly.
        const exitAtOnce = mode.name === 'serve + run' && k === sessions - 1;
        const label = `${LABELS[mode.name] ?? 'z'}${k + 1}`;
        await drive(mode, base, label, size, exitAtOnce, result).catch((error: Error) => {
          const refused = /--approve-from discord: unknown channel/.exec(error.message);
          if (refused && mode.send.length === 0) {
            mode.skipped = refused[0];
            return stopHost(mode, result); // nothing more to measure there
          }
          result.problems.push(
            `${mode.name}, session ${k + 1}: ${error.message}${hostLogTail(mode.host.log())}`,
          );
        });
      }
    }
  } finally {
    for (const mode of modes) await stopHost(mode, result);
    await base.gateway.stop().catch((e: Error) => result.problems.push(e.message));
    base.rest.close();
    await Promise.all(fakes.map((fake) => fake.close()));
  }
  try {
    for (const mode of modes) {
      if (!mode.probes && !mode.skipped) await rowTimesFromStore(ctx.root, mode);
      for (const [token, held] of mode.probes ? mode.heldAt : []) {
        const opened = mode.probes!.opened.get(token);
        if (opened !== undefined) mode.row.set(token, held - opened);
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  report(result, modes, base);
  return result;
}

async function stopHost(mode: Mode, result: Result): Promise<void> {
  if (mode.stopped) return;
  mode.stopped = true;
  await mode.host.stop().catch((e: Error) => result.problems.push(`${mode.name}: ${e.message}`));
}

/** p50 (against a target when given), p90, p95 and p99, as rows of the ratio table (values in ms). */
function percentileRows(label: string, samples: number[], p50Target?: number): Ratio[] {
  const p50 = percentile(samples, 50);
  return [
    p50Target === undefined ? info(`${label} p50 (ms)`, p50) : atMost(`${label} p50 (ms)`, p50, p50Target),
    ...[90, 95, 99].map((p) => info(`${label} p${p} (ms)`, percentile(samples, p))),
  ];
}

/** For each prompt the in-process probes saw whole: `to - from`, in ms. */
function between(from: Map<string, number>, to: Map<string, number>): number[] {
  return [...to].flatMap(([token, at]) => {
    const start = from.get(token);
    return start === undefined ? [] : [at - start];
  });
}

function report(result: Result, modes: Mode[], base: Baselines): void {
  result.measurements.push(
    measurement('baseline: discord.js REST.post -> the fake holds the message', base.restToFake),
    measurement('baseline: discord.js REST.post round trip', base.restRoundTrip),
    measurement('baseline: gateway dispatch -> bare client interactionCreate', base.dispatch),
  );
  const restP50 = percentile(base.restToFake, 50);
  const dispatchP50 = percentile(base.dispatch, 50);
  for (const mode of modes) {
    if (mode.skipped) {
      result.notes.push(`${mode.name}: not measured: agent-bridge run says "${mode.skipped}"`);
      continue;
    }
    const row = [...mode.row.values()];
    result.measurements.push(
      measurement(`${mode.name}: prompt row created -> message with buttons`, row),
      measurement(`${mode.name}: prompt's last byte -> message with buttons`, mode.send),
      measurement(`${mode.name}: button press -> answer read`, mode.answer),
    );
    result.ratios.push(
      ...percentileRows(`${mode.name}: row -> message`, row, SEND_TARGET_MS),
      info(`${mode.name}: row -> message p50 / REST baseline p50`, percentile(row, 50) / restP50),
      ...percentileRows(`${mode.name}: press -> answer read`, mode.answer, ANSWER_TARGET_MS),
      info(
        `${mode.name}: press -> answer read p50 / dispatch baseline p50`,
        percentile(mode.answer, 50) / dispatchP50,
      ),
      ...percentileRows(`${mode.name}: last byte -> message`, mode.send),
    );
  }
  result.ratios.push(
    ...percentileRows('baseline: REST.post -> fake holds it', base.restToFake),
    ...percentileRows('baseline: dispatch -> interactionCreate', base.dispatch),
  );
  for (const mode of modes) {
    const probes = mode.probes;
    if (!probes || mode.skipped) continue;
    // Where the time goes (medians, ms): the send, then the answer. Stamps from inside agent-bridge.
    const stages: [string, Map<string, number>, Map<string, number>][] = [
      ['row created -> the relay calls sendPrompt', probes.opened, probes.sendCalled],
      ['sendPrompt called -> the fake holds the message', probes.sendCalled, mode.heldAt],
      ['the fake holds the message -> sendPrompt resolves', mode.heldAt, probes.sendResolved],
      ['button pressed -> the event reaches the relay', mode.pressed, probes.inbound],
      ['event at the relay -> answer recorded (onAnswer)', probes.inbound, probes.answered],
      ['onAnswer -> TerminalSession.answer called', probes.answered, probes.keysStarted],
      ['TerminalSession.answer called -> the child reads the keys', probes.keysStarted, mode.read],
      [
        'acknowledge called, from TerminalSession.answer called (< 0: before)',
        probes.keysStarted,
        probes.ackCalled,
      ],
      ['acknowledge called -> resolved (ephemeral reply)', probes.ackCalled, probes.ackDone],
    ];
    for (const [label, from, to] of stages)
      result.ratios.push(info(`${mode.name} stage p50: ${label} (ms)`, median(between(from, to))));
  }
  const [linked, ...others] = modes;
  for (const other of others) {
    if (!linked || other.skipped || other.answer.length === 0 || linked.answer.length === 0) continue;
    result.ratios.push(
      info(
        `${other.name} minus ${linked.name}, row -> message p50 (ms)`,
        median([...other.row.values()]) - median([...linked.row.values()]),
      ),
      info(
        `${other.name} minus ${linked.name}, answer p50 (ms)`,
        median(other.answer) - median(linked.answer),
      ),
    );
  }
  const skew = wallClockSkew();
  if (skew > 2)
    result.notes.push(`the wall clock moved ${fmt(skew)} ms against the monotonic clock: distrust`);
}

export const discordLatency: Benchmark = {
  name: 'discord-latency',
  description:
    'prompt -> Discord message with buttons and button press -> answer typed, with the fake Discord',
  run,
};
