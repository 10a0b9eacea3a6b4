import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type * as Registry from '../src/agents/registry.js';
import type * as ClockModule from '../src/core/clock.js';
import type * as ProcessModule from '../src/cli/process.js';
import type * as AnswerModule from '../src/sessions/answer-prompt.js';
import type * as SessionModule from '../src/sessions/agent-session.js';
import type * as RelayModule from '../src/sessions/channel-relay.js';
import type * as TypedModule from '../src/sessions/typed-text.js';
import type * as StoreModule from '../src/store/store.js';
import { RecordingChannel, type Sent } from './recording-channel.js';
import { fmt, importDist, latencyRows, percentile, sleep, wallNow, withTimeout } from './support.js';
import type { Benchmark, BenchContext, Result } from './types.js';
import { atMost, info, measurement } from './util.js';

const TRIALS = { quick: 10, full: 40 };
const WAIT_MS = 10_000;
const GAP_MS = 30;
const CHAT = 'bench-chat';

/** One driver under test: a scripted agent (bench/agents/) that stamps its prompt and its answer. */
interface Subject {
  label: string;
  agent: 'custom' | 'acp' | 'claude' | 'codex';
  script: string;
  structured: boolean;
  /** The answer that allows its prompt. */
  allow: string;
}

const SUBJECTS: Subject[] = [
  { label: 'terminal', agent: 'custom', script: 'stamped-terminal.mjs', structured: false, allow: 'y' },
  { label: 'acp', agent: 'acp', script: 'stamped-acp.mjs', structured: true, allow: '1' },
  {
    label: 'claude stream-json',
    agent: 'claude',
    script: 'stamped-claude.mjs',
    structured: true,
    allow: '1',
  },
  { label: 'codex app-server', agent: 'codex', script: 'stamped-codex.mjs', structured: true, allow: '1' },
];

interface Samples {
  /** Agent wrote its prompt -> the session's `prompt` event. */
  promptEvent: number[];
  /** Agent wrote its prompt -> the chat got it (the relay's sendPrompt). */
  promptChat: number[];
  /** Agent wrote its last words -> the chat got them (structured drivers; the terminal's come off the screen). */
  messageChat: number[];
}

const stampOf = (text: string, name: string) =>
  Number(new RegExp(`${name}=(\\d+\\.\\d+)`).exec(text)?.[1] ?? NaN);

async function run(ctx: BenchContext): Promise<Result> {
  const trials = ctx.reps ?? (ctx.quick ? TRIALS.quick : TRIALS.full);
  const result: Result = {
    name: 'structured-latency',
    params: { trials, subjects: SUBJECTS.map((s) => s.label) },
    measurements: [],
    ratios: [],
    notes: [
      'per driver, a scripted agent (bench/agents/) stamps its prompt and its last words with its wall clock',
      'prompt -> event: the AgentSession prompt event; prompt -> chat, words -> chat: a relay to a recording channel',
      'terminal: the (y/n) line read off the screen (its words reach chats off the screen, through the daemon batcher: see telegram-latency)',
      'baseline for words -> chat: a message written straight into the store (the relay floor), interleaved',
    ],
    problems: [],
  };
  const modules = await load(ctx.root);
  const samples = new Map(
    SUBJECTS.map((s) => [s.label, { promptEvent: [], promptChat: [], messageChat: [] } as Samples]),
  );
  const floor: number[] = [];
  const dir = mkdtempSync(path.join(tmpdir(), 'ab-bench-structured-'));
  try {
    for (const subject of SUBJECTS) {
      ctx.log(`  ${subject.label}: ${trials} prompts`);
      await measureSubject(
        modules,
        ctx,
        subject,
        trials,
        path.join(dir, subject.agent),
        samples.get(subject.label)!,
        floor,
      ).catch((error: unknown) => result.problems.push(`${subject.label}: ${(error as Error).message}`));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  report(result, samples, floor);
  return result;
}

type Modules = Awaited<ReturnType<typeof load>>;

async function load(root: string) {
  return {
    root,
    agents: (await importDist<typeof Registry>(root, 'agents/registry.js')).agents,
    systemClock: (await importDist<typeof ClockModule>(root, 'core/clock.js')).systemClock,
    isProcessAlive: (await importDist<typeof ProcessModule>(root, 'cli/process.js')).isProcessAlive,
    answerPrompt: (await importDist<typeof AnswerModule>(root, 'sessions/answer-prompt.js')).answerPrompt,
    AgentSession: (await importDist<typeof SessionModule>(root, 'sessions/agent-session.js')).AgentSession,
    ChannelRelay: (await importDist<typeof RelayModule>(root, 'sessions/channel-relay.js')).ChannelRelay,
    sendTextToSession: (await importDist<typeof TypedModule>(root, 'sessions/typed-text.js'))
      .sendTextToSession,
    openStore: (await importDist<typeof StoreModule>(root, 'store/store.js')).openStore,
  };
}

/** Waits for the next thing sent to the chat that `match`es. */
class Inbox {
  private waiting: { match: (s: Sent) => boolean; resolve: (s: Sent) => void } | null = null;

  onSend(sent: Sent): void {
    if (this.waiting?.match(sent)) {
      this.waiting.resolve(sent);
      this.waiting = null;
    }
  }

  next(match: (s: Sent) => boolean, what: string): Promise<Sent> {
    return withTimeout(new Promise((resolve) => (this.waiting = { match, resolve })), WAIT_MS, what);
  }
}

async function measureSubject(
  m: Modules,
  ctx: BenchContext,
  subject: Subject,
  trials: number,
  dir: string,
  into: Samples,
  floor: number[],
): Promise<void> {
  const store = m.openStore({ dir });
  const relayStore = m.openStore({ dir });
  const inbox = new Inbox();
  let sessionId = '';
  const relay = new m.ChannelRelay({
    channel: new RecordingChannel('bench', (sent) => inbox.onSend(sent)),
    store: relayStore,
    clock: m.systemClock,
    chats: [{ chatId: CHAT }],
    allowedUsers: new Set(['bench']),
    outputThreshold: 1500,
    isAlive: m.isProcessAlive,
    exclusive: false,
    bookkeeping: `bench:${subject.agent}`,
    serves: (record) => record.id === sessionId,
  });
  const session = await m.AgentSession.start({
    spec: m.agents[subject.agent],
    command: process.execPath,
    args: [path.join(ctx.root, 'bench', 'agents', subject.script)],
    cwd: ctx.root,
    env: process.env,
    cols: 120,
    rows: 40,
    autoTrust: false,
    record: false,
    store,
    clock: m.systemClock,
    approveFrom: ['bench'],
    observers: [{ opened: () => relay.poke(), closed: () => relay.poke() }],
    ...(subject.structured ? { structured: {} } : {}),
  });
  sessionId = session.id;
  let promptEventAt = 0;
  session.on((event) => {
    if (event.type === 'prompt') promptEventAt = wallNow();
    if (event.type === 'message') relay.poke();
  });
  await relay.start();
  try {
    await session.whenReady(5_000);
    for (let i = 0; i < trials; i++) {
      promptEventAt = 0;
      const prompt = inbox.next((s) => s.kind === 'prompt', 'the prompt in the chat');
      m.sendTextToSession(store, session.id, 'go', 'bench');
      session.poke();
      const sent = await prompt;
      const stamp = stampOf(sent.text, 'prompt-at');
      into.promptChat.push(sent.at - stamp);
      into.promptEvent.push(promptEventAt - stamp);
      const record = store.prompts.open(session.id)[0];
      if (!record) throw new Error('the prompt is not open in the store');
      const words = inbox.next(
        (s) => s.kind === 'text' && s.text.includes('message-at='),
        'the words in the chat',
      );
      const answered = m.answerPrompt(store, {
        promptRef: record.id,
        raw: subject.allow,
        decidedBy: 'bench:bench',
      });
      if (!answered.ok) throw new Error(`answer refused: ${answered.reason}`);
      session.poke();
      if (subject.structured) {
        const text = await words;
        into.messageChat.push(text.at - stampOf(text.text, 'message-at'));
      } else void words.catch(() => undefined);
      await sleep(GAP_MS);
      // The relay's floor, interleaved: a message straight into the store -> the chat.
      const direct = inbox.next(
        (s) => s.kind === 'text' && s.text.includes('floor-at='),
        'a stored message in the chat',
      );
      store.channels.addMessage(session.id, 'message', `floor-at=${wallNow().toFixed(3)}`);
      relay.poke();
      const got = await direct;
      floor.push(got.at - stampOf(got.text, 'floor-at'));
      await sleep(GAP_MS);
    }
  } finally {
    const exit = await session.driver.stop();
    await session.finish(exit, 'terminated');
    await relay.stop();
    relayStore.close();
    store.close();
  }
}

function report(result: Result, samples: Map<string, Samples>, floor: number[]): void {
  const terminal = percentile(samples.get('terminal')!.promptChat, 50);
  const base = percentile(floor, 50);
  result.measurements.push(measurement('stored message -> chat (floor)', floor));
  for (const [label, s] of samples) {
    if (s.promptEvent.length)
      result.measurements.push(measurement(`${label}: prompt -> event`, s.promptEvent));
    if (s.promptChat.length) result.measurements.push(measurement(`${label}: prompt -> chat`, s.promptChat));
    if (s.messageChat.length) result.measurements.push(measurement(`${label}: words -> chat`, s.messageChat));
    result.ratios.push(...latencyRows(`${label}: prompt -> event`, s.promptEvent));
    if (label !== 'terminal' && s.promptChat.length)
      result.ratios.push(
        atMost(`${label}: prompt -> chat / terminal's`, percentile(s.promptChat, 50) / terminal, 1),
      );
    if (s.messageChat.length)
      result.ratios.push(
        info(`${label}: words -> chat / stored message -> chat`, percentile(s.messageChat, 50) / base),
      );
  }
  result.notes.push(
    `terminal prompt -> chat p50 ${fmt(terminal)} ms; stored message -> chat p50 ${fmt(base)} ms`,
  );
}

export const structuredLatency: Benchmark = {
  name: 'structured-latency',
  description: 'per driver: an agent’s prompt -> prompt event and -> chat; its last words -> chat',
  run,
};
