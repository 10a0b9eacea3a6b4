import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildReport, Cpu, Memory } from './daemon-sessions-child.js';
import { fmt, latencyRows, percentile } from './support.js';
import type { Benchmark, BenchContext, Ratio, Result } from './types.js';
import { atMost, info, measurement, median } from './util.js';

const SESSIONS = { quick: 5, full: 20 };
const REPS = { quick: 1, full: 2 };
/** CPU windows: the daemon idle (no session, then every session idle), and every agent ticking. */
const IDLE_MS = { quick: 1_500, full: 2_000 };
const CHAT_MS = { quick: 3_000, full: 6_000 };
const HEAP_TARGET_MB = 2;
const DELAY_TARGET_MS = 600;
const CHILD_TIMEOUT_MS = 120_000;

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MB = 1024 * 1024;

/** Forks one configuration (bench/daemon-sessions-child.ts) under tsx, with gc exposed. */
function runChild(args: string[], home: string): Promise<ChildReport> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(HERE, 'daemon-sessions-child.ts'), args, {
      cwd: path.dirname(HERE),
      env: { ...process.env, AGENT_BRIDGE_HOME: home },
      execArgv: [...process.execArgv, '--expose-gc'],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let report: ChildReport | null = null;
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + String(chunk)).slice(-2000)));
    child.on('message', (message) => (report = message as ChildReport));
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (report) resolve(report);
      else reject(new Error(`${args.join(' ')}: ${signal ?? `exit code ${code}`}; stderr: ${stderr.trim()}`));
    });
  });
}

/** Bytes per session of what one configuration added over the same process with no session. */
function perSession(r: ChildReport, pick: (m: Memory) => number, from: 'idle' | 'full' = 'idle'): number {
  const after = r.memory[from];
  return after ? (pick(after) - pick(r.memory.zero)) / r.sessions : Number.NaN;
}

const mb = (bytes: number) => bytes / MB;
const med = (reports: ChildReport[], value: (r: ChildReport) => number) => median(reports.map(value));

async function run(ctx: BenchContext): Promise<Result> {
  const size = ctx.quick ? SESSIONS.quick : SESSIONS.full;
  const reps = ctx.reps ?? (ctx.quick ? REPS.quick : REPS.full);
  const idleMs = ctx.quick ? IDLE_MS.quick : IDLE_MS.full;
  const chatMs = ctx.quick ? CHAT_MS.quick : CHAT_MS.full;
  const result: Result = {
    name: 'daemon-sessions',
    params: { sessions: size, reps, idleMs, chatMs, tickMs: 100, outputThreshold: 1_500, rateLimits: null },
    measurements: [],
    ratios: [],
    notes: [],
    problems: [],
  };
  const configs = [
    { key: 'raw', args: ['raw', ctx.root, '1'], burst: false },
    { key: 'one', args: ['daemon', ctx.root, '1'], burst: false },
    { key: 'many', args: ['daemon', ctx.root, String(size)], burst: true },
  ] as const;
  const reports: Record<(typeof configs)[number]['key'], ChildReport[]> = { raw: [], one: [], many: [] };
  for (let rep = 0; rep < reps; rep++) {
    // Interleaved, and rotated so no configuration always runs first.
    for (let i = 0; i < configs.length; i++) {
      const config = configs[(i + rep) % configs.length]!;
      ctx.log(`  rep ${rep + 1}/${reps}: ${config.args[0]} with ${config.args[2]} session(s)`);
      try {
        const timing = [String(idleMs), String(chatMs), config.burst ? 'burst' : 'no-burst'];
        const report = await runChild([...config.args, ...timing], await ctx.home());
        reports[config.key].push(report);
        for (const problem of report.problems.map((p) => `${config.key} (${report.sessions}): ${p}`))
          if (!result.problems.includes(problem)) result.problems.push(problem);
      } catch (error) {
        result.problems.push(`${config.key}: the child failed: ${(error as Error).message}`);
      }
    }
  }
  const { raw, one, many } = reports;
  // Everything but the delay samples (those are in the measurements).
  result.params.children = [...raw, ...one, ...many].map(({ delays: _d, oldest: _o, ...rest }) => rest);
  if (one.length === 0 || many.length === 0 || raw.length === 0) return result;
  summarise(result, raw, one, many, size);
  return result;
}

function summarise(
  result: Result,
  raw: ChildReport[],
  one: ChildReport[],
  many: ChildReport[],
  size: number,
) {
  const delays = (rs: ChildReport[]) => rs.flatMap((r) => r.delays);
  const oldest = (rs: ChildReport[]) => rs.flatMap((r) => r.oldest);
  result.measurements.push(
    measurement('delay, raw node-pty (1 agent), every line', delays(raw)),
    measurement('delay, daemon 1 session, every line', delays(one)),
    measurement(`delay, daemon ${size} sessions, every line`, delays(many)),
    measurement('delay, daemon 1 session, oldest line of each message', oldest(one)),
    measurement(`delay, daemon ${size} sessions, oldest line of each message`, oldest(many)),
    measurement(
      'first message -> answer, 1 session (cold start)',
      one.map((r) => r.startAllMs),
    ),
    measurement(
      `first message -> last answer, ${size} sessions at once`,
      many.map((r) => r.startAllMs),
    ),
  );
  const heap = (rs: ChildReport[]) => mb(med(rs, (r) => perSession(r, (m) => m.heapUsed)));
  const external = (rs: ChildReport[]) => mb(med(rs, (r) => perSession(r, (m) => m.external)));
  const rss = (rs: ChildReport[]) => mb(med(rs, (r) => perSession(r, (m) => m.rss)));
  const full = (rs: ChildReport[]) =>
    mb(med(rs, (r) => perSession(r, (m) => m.heapUsed + m.external, 'full')));
  const agentRss = (rs: ChildReport[]) => mb(med(rs, (r) => r.agents.rss / r.sessions));
  const agentPss = (rs: ChildReport[]) => mb(med(rs, (r) => r.agents.pss / r.sessions));
  // What N sessions add over one, per added session: the first session also pays one-off costs.
  const marginal = mb(
    median(many.map((r) => r.memory.idle.heapUsed - r.memory.zero.heapUsed)) -
      median(one.map((r) => r.memory.idle.heapUsed - r.memory.zero.heapUsed)),
  );
  const zeroCpu = (rs: ChildReport[], k: keyof Cpu = 'all') => med(rs, (r) => r.cpu.zero[k]);
  const idleCpu = (rs: ChildReport[], k: keyof Cpu = 'all') =>
    med(rs, (r) => (r.cpu.idle[k] - r.cpu.zero[k]) / r.sessions);
  const chatCpu = (rs: ChildReport[], k: keyof Cpu = 'all') =>
    med(rs, (r) => (r.cpu.chat[k] - r.cpu.zero[k]) / r.sessions);
  const p50 = (values: number[]) => percentile(values, 50);
  const rows: Ratio[] = [
    atMost(`heap used per idle session, ${size} sessions (MB)`, heap(many), HEAP_TARGET_MB),
    info('heap used per idle session, 1 session (MB)', heap(one)),
    info(`heap per idle session: ${size} / 1`, heap(many) / heap(one)),
    info(`heap per added idle session, 1 -> ${size} sessions (MB)`, marginal / (size - 1)),
    info(`external (Buffers, native) per idle session, ${size} sessions (MB)`, external(many)),
    info(`RSS per idle session, ${size} sessions (MB)`, rss(many)),
    info('RSS per idle session, 1 session (MB)', rss(one)),
    info(`heap + external per session, scrollback full, ${size} sessions (MB)`, full(many)),
    info(`agent RSS per agent, ${size} agents (MB, not ours)`, agentRss(many)),
    info(`agent PSS per agent, ${size} agents (MB, not ours)`, agentPss(many)),
    info('CPU of the daemon with no session (ms/s)', zeroCpu(many)),
    info(`CPU per idle session, ${size} sessions, main thread (ms/s)`, idleCpu(many, 'main')),
    info('  same, every thread (start-up JIT and GC still running)', idleCpu(many)),
    info('CPU per idle session, 1 session, main thread (ms/s)', idleCpu(one, 'main')),
    info(`CPU per chatting session, ${size} sessions (ms/s)`, chatCpu(many)),
    info('  same, main thread only', chatCpu(many, 'main')),
    info('CPU per chatting session, 1 session (ms/s)', chatCpu(one)),
    info('  same, main thread only', chatCpu(one, 'main')),
    info(`CPU per chatting session: ${size} / 1`, chatCpu(many) / chatCpu(one)),
    info(
      `CPU of the whole daemon, ${size} sessions chatting (ms/s)`,
      med(many, (r) => r.cpu.chat.all),
    ),
    info('CPU of raw node-pty reading 1 chatting agent (ms/s)', chatCpu(raw)),
    info('  same, main thread only', chatCpu(raw, 'main')),
    info(
      `CPU per chatting session, main thread: ${size} sessions / raw`,
      chatCpu(many, 'main') / chatCpu(raw, 'main'),
    ),
    ...latencyRows(`delay, ${size} sessions`, delays(many), DELAY_TARGET_MS),
    ...latencyRows('delay, 1 session', delays(one)),
    ...latencyRows('delay, raw node-pty', delays(raw)),
    info(`delay p50: ${size} sessions / 1 session`, p50(delays(many)) / p50(delays(one))),
    info(`delay p50: ${size} sessions / raw node-pty`, p50(delays(many)) / p50(delays(raw))),
    info(`delay p99 of the oldest line of each message, ${size} sessions (ms)`, percentile(oldest(many), 99)),
  ];
  result.ratios.push(...rows);
  const sent = many[0]!.sent;
  result.notes.push(
    'each configuration runs in its own process (node --expose-gc, tsx), forked and interleaved; memory after gc',
    `memory per session = (every session idle − the same daemon before any session) / sessions; sessions idle = ` +
      `started by one message each, answered, then 3 s quiet`,
    'CPU = process.cpuUsage() (every thread: V8 compiler and GC helpers, libuv pool) per second of wall time ' +
      '(10 ms/s = 1% of a core), minus the same process before any session, per session; main thread from ' +
      "/proc/self/task/<pid>/schedstat (exact), which leaves out tsx's loader thread and V8's helpers",
    'delay = the channel receiving a line − the agent printing it ($EPOCHREALTIME in the line), every line of a ' +
      'message; the oldest line of a message waited for the whole 500 ms batch',
    `agents print a line every 100 ms; ${size} sessions sent ${sent.text ?? 0} texts, ${sent.file ?? 0} files, ` +
      `${sent.prompt ?? 0} prompts in one run (prompts: low-confidence ones raised by idle agents reading)`,
    "the agents' own CPU (bash) is not counted; RSS moves by whole MBs between phases (freed pages), read heap",
  );
  const logged = [...new Set([...one, ...many].flatMap((r) => r.log))];
  if (logged.length > 0) result.notes.push(`the daemon logged: ${logged.slice(0, 5).join(' | ')}`);
  result.params.summary =
    `heap/session ${fmt(heap(many))} MB, CPU/chatting session ${fmt(chatCpu(many))} ms/s, ` +
    `delay p50 ${fmt(p50(delays(many)))} ms`;
}

export const daemonSessions: Benchmark = {
  name: 'daemon-sessions',
  description: 'the serve daemon with many chatty repositories: memory, CPU and output delay per session',
  run,
};
