import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startFakeTelegram, type FakeTelegram } from '../test/fakes/telegram/server.js';
import { buttonData, hasButtons, OWNER, writeTelegramConfig } from '../test/support/telegram-setup.js';
import { fmt, latencyRows, wallClockSkew, wallNow, waitUntil } from './support.js';
import {
  crossProcessHost,
  inProcessHost,
  PROMPT_SPACING_MS,
  type BenchSession,
  type Host,
} from './telegram-runners.js';
import type { Benchmark, BenchContext, Result } from './types.js';
import { hostLogTail, info, measurement, median } from './util.js';

const PROMPTS = { quick: 5, full: 20 };
/** ChannelRelay lets 10 answers per session per minute through: a session never gets more prompts. */
const PER_SESSION = 10;
const SEND_TARGET_MS = 50;
const ANSWER_TARGET_MS = 20;
const WAIT_MS = 15_000;
/** A send later than this waited for Telegram's 1 s per-chat spacing: the bench's pacing failed. */
const SPACED_MS = 900;

interface Mode {
  name: string;
  fake: FakeTelegram;
  host: Host;
  /** Prompt's last byte -> sendMessage with buttons at the fake. */
  send: number[];
  /** Button press -> `read` returns the answer in the child. */
  answer: number[];
}

/**
 * One session of `count` prompts: each is sent with buttons, pressed "Yes", and read by the child. The child
 * lingers 0.5 s after its last answer, or exits at once when `exitAtOnce` (what a script often does).
 */
async function drive(mode: Mode, label: string, count: number, exitAtOnce: boolean, result: Result) {
  const session = await mode.host.session(label, count, exitAtOnce ? 0 : 0.5);
  try {
    await answerAll(mode, session, label, count, result);
  } catch (error) {
    session.abort();
    throw error;
  }
  await session.done;
}

async function answerAll(mode: Mode, session: BenchSession, label: string, count: number, result: Result) {
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
    const sent = fake.waitForMessage((m) => hasButtons(m) && (m.text ?? '').includes(token), WAIT_MS);
    sent.catch(() => undefined); // when `ended` wins the race, the wait still times out later
    const message = await Promise.race([sent, ended]);
    const sentAt = wallNow();
    const pressedAt = wallNow();
    fake.userPressesButton({
      userId: OWNER,
      messageId: message.messageId,
      data: buttonData(message, '✅ Yes'),
    });
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
    mode.send.push(sentAt - promptAt);
    // A wrong answer has no latency: it is a problem, and not a sample (it may even come before the press).
    if (got.answer === 'y') mode.answer.push(got.at - pressedAt);
    else result.problems.push(`${mode.name}, ${token}: the child read "${got.answer}", not "y"`);
  }
}

async function run(ctx: BenchContext): Promise<Result> {
  const count = ctx.reps ?? (ctx.quick ? PROMPTS.quick : PROMPTS.full);
  const result: Result = {
    name: 'telegram-latency',
    params: { prompts: count, perSession: PER_SESSION, promptSpacingMs: PROMPT_SPACING_MS },
    measurements: [],
    ratios: [],
    notes: [
      'fake Telegram Bot API (test/fakes/telegram) in the bench process, real timers, one chat',
      'send = prompt written by the child ($EPOCHREALTIME) -> the fake holds the sendMessage with buttons',
      'answer = userPressesButton -> the child\'s `read` returns "y" ($EPOCHREALTIME)',
      `prompts ${fmt(PROMPT_SPACING_MS / 1000)} s apart (Telegram sends are spaced 1 s per chat, and the ` +
        `outcome edit counts); at most ${PER_SESSION} per session (the relay's answer rate limit)`,
    ],
    problems: [],
  };
  const dir = await mkdtemp(path.join(tmpdir(), 'agent-bridge-bench-tg-'));
  const fakes = [await startFakeTelegram(), await startFakeTelegram()];
  const modes: Mode[] = [];
  try {
    const [inFake, crossFake] = fakes as [FakeTelegram, FakeTelegram];
    const inHost = await inProcessHost(ctx.root, inFake, await ctx.home());
    modes.push({ name: 'in-process', fake: inFake, host: inHost, send: [], answer: [] });
    const home = await ctx.home();
    writeTelegramConfig(home, crossFake);
    const crossHost = await crossProcessHost(ctx.root, crossFake, home);
    modes.push({ name: 'serve + run', fake: crossFake, host: crossHost, send: [], answer: [] });
    const sessions = Math.ceil(count / PER_SESSION);
    for (let k = 0; k < sessions; k++) {
      const size = Math.min(PER_SESSION, count - k * PER_SESSION);
      // Interleaved, and rotated so no set-up always runs first.
      for (const mode of modes.map((_, i) => modes[(i + k) % modes.length]!)) {
        ctx.log(`  ${mode.name}: session ${k + 1} of ${sessions}, ${size} prompts`);
        // The last session of `run` exits right after its last answer: `run` must still end cleanly.
        const exitAtOnce = mode.name === 'serve + run' && k === sessions - 1;
        const label = `${mode.name === 'in-process' ? 'i' : 'x'}${k + 1}`;
        await drive(mode, label, size, exitAtOnce, result).catch((error: Error) =>
          result.problems.push(
            `${mode.name}, session ${k + 1}: ${error.message}${hostLogTail(mode.host.log())}`,
          ),
        );
      }
    }
  } finally {
    for (const mode of modes) await mode.host.stop().catch((e: Error) => result.problems.push(e.message));
    await Promise.all(fakes.map((fake) => fake.close()));
    await rm(dir, { recursive: true, force: true });
  }
  report(result, modes);
  return result;
}

function report(result: Result, modes: Mode[]): void {
  for (const mode of modes) {
    result.measurements.push(
      measurement(`${mode.name}: prompt's last byte -> sendMessage`, mode.send),
      measurement(`${mode.name}: button press -> answer read`, mode.answer),
    );
    result.ratios.push(
      ...latencyRows(`${mode.name}: prompt -> sendMessage`, mode.send, SEND_TARGET_MS),
      ...latencyRows(`${mode.name}: press -> answer read`, mode.answer, ANSWER_TARGET_MS),
    );
    const spaced = mode.send.filter((ms) => ms > SPACED_MS).length;
    if (spaced > 0)
      result.notes.push(
        `${mode.name}: ${spaced} send(s) waited for the 1 s per-chat spacing (pacing too tight)`,
      );
  }
  const [inProc, cross] = modes;
  if (inProc && cross && cross.send.length > 0 && inProc.send.length > 0) {
    result.ratios.push(
      info('serve + run minus in-process, send p50 (ms)', median(cross.send) - median(inProc.send)),
      info('serve + run minus in-process, answer p50 (ms)', median(cross.answer) - median(inProc.answer)),
    );
  }
  const skew = wallClockSkew();
  if (skew > 2)
    result.notes.push(`the wall clock moved ${fmt(skew)} ms against the monotonic clock: distrust`);
}

export const telegramLatency: Benchmark = {
  name: 'telegram-latency',
  description: 'prompt -> Telegram message and button press -> answer typed, with the fake Bot API',
  run,
};
