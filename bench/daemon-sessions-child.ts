/**
 * One configuration of daemon-sessions in a process of its own (forked with `--expose-gc`, so memory and CPU
 * are its alone). argv `daemon <root> <sessions> <idleMs> <chatMs> burst|no-burst`: agent-bridge's daemon
 * (dist/), each repository a chatty agent mapped to a chat of one RecordingChannel; `raw <root> 1 <idleMs>
 * <chatMs>`: node-pty reading one chatty agent, nothing else. Sends a ChildReport over IPC.
 */
import { readFileSync } from 'node:fs';

import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn as spawnPty } from 'node-pty';
import type * as Discovery from '../src/agents/discovery.js';
import type * as Registry from '../src/agents/registry.js';
import type * as ProcessModule from '../src/cli/process.js';
import type * as ClockModule from '../src/core/clock.js';
import type * as DaemonModule from '../src/sessions/daemon/daemon.js';
import type * as StoreModule from '../src/store/store.js';
import { RecordingChannel, type Sent } from './recording-channel.js';
import { importDist, sleep, waitUntil, wallNow } from './support.js';
import { TickLog } from './tick-log.js';

export const AGENT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'daemon-agent.sh');
export const TICK_MS = 100;
/** After CHAT, before measuring: every agent is ticking and every batcher has its rhythm. */
const WARMUP_MS = 1_500;
/** After the first answers: start-up work done (a low-confidence prompt comes after 2 s of silence). */
const SETTLE_MS = 3_000;
/** One batch of the daemon's output: lines held up by a gc() before a window are delivered before it. */
const BATCH_MS = 600;
/** Before the first measurement: start-up work (compilation, loading, its garbage) done. */
const QUIET_MS = 1_500;
const BURST_LINES = 1_100;
const WAIT_MS = 60_000;

export interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
}

export interface ChildReport {
  mode: 'daemon' | 'raw';
  sessions: number;
  /** After gc: the daemon started with no session, with every session idle, after a burst filled scrollback. */
  memory: { zero: Memory; idle: Memory; full: Memory | null };
  /** The agents' own memory while idle, summed (bytes; PSS shares bash's pages fairly). */
  agents: { rss: number; pss: number };
  /** Our process's CPU (user + system), ms per second of wall time. */
  cpu: { zero: Cpu; idle: Cpu; chat: Cpu };
  /** First message to every repository -> the last of their answers, ms. */
  startAllMs: number;
  /** Every tick line received while measuring: receipt - printed, ms; and the oldest line of each delivery. */
  delays: number[];
  oldest: number[];
  sent: Record<string, number>;
  /** What the daemon logged (delivery failures and the like). */
  log: string[];
  problems: string[];
}

async function memory(): Promise<Memory> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(30);
  }
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external };
}

/** CPU ms per second of wall time: every thread (process.cpuUsage), and the main thread alone. */
export interface Cpu {
  all: number;
  main: number;
}

/** The main thread's CPU time (ns, from the scheduler: exact), or NaN where /proc has no schedstat. */
function mainThreadNs(): number {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return Number.NaN;
  }
}

async function cpuPerSecond(ms: number): Promise<Cpu> {
  const start = process.cpuUsage();
  const main = mainThreadNs();
  const t0 = performance.now();
  await sleep(ms);
  const used = process.cpuUsage(start);
  const seconds = (performance.now() - t0) / 1000;
  return { all: (used.user + used.system) / 1000 / seconds, main: (mainThreadNs() - main) / 1e6 / seconds };
}

function agentMemory(pids: number[]): { rss: number; pss: number } {
  const kb = (text: string, field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
  let rss = 0;
  let pss = 0;
  for (const pid of pids) {
    try {
      rss += kb(readFileSync(`/proc/${pid}/status`, 'utf8'), 'VmRSS') * 1024;
      pss += kb(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'), 'Pss') * 1024;
    } catch {
      // gone, or not Linux: counted as 0
    }
  }
  return { rss, pss };
}

async function daemonMode(
  root: string,
  count: number,
  idleMs: number,
  chatMs: number,
  burst: boolean,
): Promise<ChildReport> {
  // The data folder the parent chose (empty, or a copy with history).
  const home = process.env.AGENT_BRIDGE_HOME!;
  const [{ Daemon }, { openStore }, registry, discovery, { systemClock }, { isProcessAlive }] =
    await Promise.all([
      importDist<typeof DaemonModule>(root, 'sessions/daemon/daemon.js'),
      importDist<typeof StoreModule>(root, 'store/store.js'),
      importDist<typeof Registry>(root, 'agents/registry.js'),
      importDist<typeof Discovery>(root, 'agents/discovery.js'),
      importDist<typeof ClockModule>(root, 'core/clock.js'),
      importDist<typeof ProcessModule>(root, 'cli/process.js'),
    ]);
  const names = Array.from({ length: count }, (_, i) => `repo-${String(i + 1).padStart(2, '0')}`);
  const ticks = new TickLog();
  const heard = new Map<string, string>();
  const channel = new RecordingChannel('bench', (sent: Sent) => {
    if (sent.kind === 'text' || sent.kind === 'file') {
      ticks.feed(sent.chatId, sent.text.endsWith('\n') ? sent.text : `${sent.text}\n`, sent.at);
      heard.set(sent.chatId, ((heard.get(sent.chatId) ?? '') + sent.text.slice(-300)).slice(-600));
    }
  });
  const store = openStore({ dir: home });
  const log: string[] = [];
  const daemon = new Daemon({
    store,
    clock: systemClock,
    settings: {
      repos: names.map((name) => ({
        name,
        dir: home,
        agent: registry.getAgent('custom'),
        args: ['bash', AGENT, name],
        channels: [channel.name],
        chats: { [channel.name]: [name] },
      })),
      idleTimeoutMs: 3_600_000,
      outputThreshold: 1_500,
      resume: false,
      rateLimits: null,
    },
    channels: [{ channel, allowedUsers: new Set(['bench']), defaultChats: [], exclusive: true }],
    resolve: async (spec, launch) => {
      const resolved = await registry.resolveLaunch(spec, launch, discovery.currentDiscoveryEnv());
      return { command: resolved.command, args: resolved.args, found: resolved.discovered.found };
    },
    isAlive: isProcessAlive,
    log: (line) => log.push(line),
  });
  const problems: string[] = [];
  const everyone = (what: string, said: (name: string) => string, ms = WAIT_MS) =>
    waitUntil(() => (names.every((n) => heard.get(n)?.includes(said(n))) ? true : undefined), ms, what, 20);
  try {
    await daemon.start();
    await sleep(QUIET_MS);
    const zero = await memory();
    const zeroCpu = await cpuPerSecond(idleMs);
    const started = wallNow();
    for (const name of names) channel.type(name, 'hello');
    await everyone('every repository to answer hello', (n) => `${n} got: hello`);
    const startAllMs = wallNow() - started;
    await sleep(SETTLE_MS);
    const idle = await memory();
    const agents = agentMemory(store.sessions.list().flatMap((s) => (s.pid ? [s.pid] : [])));
    const idleCpu = await cpuPerSecond(idleMs);
    for (const name of names) channel.type(name, `CHAT ${TICK_MS}`);
    await sleep(WARMUP_MS);
    await memory().then(() => sleep(BATCH_MS)); // no start-up garbage collected inside the window
    ticks.recording = true;
    const chatCpu = await cpuPerSecond(chatMs);
    ticks.recording = false;
    for (const name of names) channel.type(name, 'STOP');
    await everyone('every agent to stop chatting', (n) => `${n} stopped chatting`, 10_000);
    problems.push(...ticks.gaps());
    const full = burst ? await fillScrollback(channel, names, heard, problems) : null;
    return {
      mode: 'daemon',
      sessions: count,
      memory: { zero, idle, full },
      agents,
      cpu: { zero: zeroCpu, idle: idleCpu, chat: chatCpu },
      startAllMs,
      delays: ticks.delays,
      oldest: ticks.oldest,
      sent: { ...channel.counts },
      log: log.slice(0, 20),
      problems,
    };
  } finally {
    await daemon.stop();
    store.close();
  }
}

/**
 * Every agent prints BURST_LINES lines: memory with the terminals' scrollback full (a long conversation), and
 * whether output still reaches the channel afterwards (a message typed then must be answered).
 */
async function fillScrollback(
  channel: RecordingChannel,
  names: string[],
  heard: Map<string, string>,
  problems: string[],
): Promise<Memory> {
  for (const name of names) channel.type(name, `BURST ${BURST_LINES}`);
  await sleep(3_000);
  const full = await memory();
  for (const name of names) channel.type(name, 'after the burst');
  const answered = (n: string) => heard.get(n)?.includes(`${n} got: after the burst`);
  await waitUntil(() => (names.every(answered) ? true : undefined), 3_000, 'answers', 20).catch(() => {
    const silent = names.filter((n) => !answered(n)).length;
    problems.push(
      `${silent} of ${names.length} repositories sent nothing more after ${BURST_LINES} lines of output ` +
        `(their answer to a message typed after the burst never reached the channel within 3 s)`,
    );
  });
  return full;
}

async function rawMode(idleMs: number, chatMs: number): Promise<ChildReport> {
  const ticks = new TickLog();
  await sleep(QUIET_MS);
  const zero = await memory();
  const zeroCpu = await cpuPerSecond(idleMs);
  const pty = spawnPty('bash', [AGENT, 'raw'], { cols: 120, rows: 40, cwd: tmpdir(), env: process.env });
  pty.onData((data) => ticks.feed('raw', data, wallNow()));
  try {
    await sleep(300);
    const idle = await memory();
    const agents = agentMemory([pty.pid]);
    const idleCpu = await cpuPerSecond(idleMs);
    pty.write(`CHAT ${TICK_MS}\r`);
    await sleep(WARMUP_MS);
    await memory().then(() => sleep(BATCH_MS)); // no start-up garbage collected inside the window
    ticks.recording = true;
    const chatCpu = await cpuPerSecond(chatMs);
    ticks.recording = false;
    return {
      mode: 'raw',
      sessions: 1,
      memory: { zero, idle, full: null },
      agents,
      cpu: { zero: zeroCpu, idle: idleCpu, chat: chatCpu },
      startAllMs: 0,
      delays: ticks.delays,
      oldest: ticks.oldest,
      sent: {},
      log: [],
      problems: ticks.gaps(),
    };
  } finally {
    pty.kill('SIGKILL');
  }
}

async function main(): Promise<void> {
  const [mode, root, sessions, idleMs, chatMs, burst] = process.argv.slice(2);
  const report =
    mode === 'raw'
      ? await rawMode(Number(idleMs), Number(chatMs))
      : await daemonMode(root!, Number(sessions), Number(idleMs), Number(chatMs), burst === 'burst');
  await new Promise<void>((resolve, reject) =>
    process.send!(report, (error: Error | null) => (error ? reject(error) : resolve())),
  );
  process.exit(0);
}

if (process.send) await main();
