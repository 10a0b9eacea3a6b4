/**
 * history-commands: the commands that read history must cost the same however long it is. `logs` on the
 * history folder's 111 MB audit log against `logs` on a log of 20 lines and against `tail -n 20`; `recordings`
 * (a page, and --json) and the web UI's GET /api/recordings with 1,000 recordings against 200 (a full page: flat from there on). Wall time from
 * spawn to exit and peak RSS (GNU time), interleaved, median.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type * as ClockModule from '../src/core/clock.js';
import type * as LiveModule from '../src/sessions/live-sessions.js';
import type * as BackendModule from '../src/sessions/web-backend.js';
import type * as StoreModule from '../src/store/store.js';
import { copyFolder, historyFolder } from './history.js';
import { importDist } from './support.js';
import type { Benchmark, BenchContext, Result } from './types.js';
import { agentBridgeBin, atMost, info, measurement, median } from './util.js';

const RUNS = { quick: 5, full: 15 };
/** History may cost at most this much more than a short log or ten recordings: flat. */
const FLAT_TARGET = 1.15;
const TIME = '/usr/bin/time';
/** Recordings left in the short folder: one full page of GET /api/recordings. */
const KEPT_RECORDINGS = 200;

interface Timed {
  ms: number;
  rssKb: number;
}

/** Spawn to exit, and the peak RSS GNU time reports (0 where it is missing). */
function timed(command: string, args: string[], env: NodeJS.ProcessEnv): Timed {
  const started = performance.now();
  const child = spawnSync(TIME, ['-f', 'RSS=%M', command, ...args], {
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  const ms = performance.now() - started;
  if (child.status !== 0)
    throw new Error(`${command} ${args.join(' ')}: exit ${child.status}: ${child.stderr.slice(-500)}`);
  const rss = /RSS=(\d+)/.exec(child.stderr);
  return { ms, rssKb: rss ? Number(rss[1]) : 0 };
}

/** A folder like `history` but short: the same store, an audit log cut to its last 20 lines, 200 recordings. */
function shortFolder(history: string, dest: string): void {
  copyFolder(history, dest);
  const log = path.join(dest, 'audit.log');
  const lines = readFileSync(log, 'utf8').trimEnd().split('\n');
  writeFileSync(log, lines.slice(-20).join('\n') + '\n', { mode: 0o600 });
  const recordings = path.join(dest, 'recordings');
  for (const name of readdirSync(recordings).sort().slice(0, -KEPT_RECORDINGS))
    rmSync(path.join(recordings, name));
}

interface Case {
  label: string;
  run(): Promise<Timed> | Timed;
}

async function apiRecordings(root: string, home: string): Promise<Timed> {
  const previous = process.env.AGENT_BRIDGE_HOME;
  process.env.AGENT_BRIDGE_HOME = home;
  try {
    const { SessionsWebBackend } = await importDist<typeof BackendModule>(root, 'sessions/web-backend.js');
    const { openStore } = await importDist<typeof StoreModule>(root, 'store/store.js');
    const { LiveSessions } = await importDist<typeof LiveModule>(root, 'sessions/live-sessions.js');
    const { systemClock } = await importDist<typeof ClockModule>(root, 'core/clock.js');
    const store = openStore({ dir: home });
    const watchStore = openStore({ dir: home });
    // The backend as serve makes it: the page's recordings name their sessions from the store.
    const backend = new SessionsWebBackend({
      store,
      watchStore,
      clock: systemClock,
      live: new LiveSessions(),
      version: '0',
      cwd: home,
    });
    try {
      const started = performance.now();
      const page = await backend.recordings();
      if (page.length === 0) throw new Error('GET /api/recordings listed nothing');
      return { ms: performance.now() - started, rssKb: 0 };
    } finally {
      backend.close();
      store.close();
      watchStore.close();
    }
  } finally {
    if (previous === undefined) delete process.env.AGENT_BRIDGE_HOME;
    else process.env.AGENT_BRIDGE_HOME = previous;
  }
}

function cases(root: string, long: string, short: string): Case[] {
  const bin = agentBridgeBin(root);
  const ab =
    (home: string, ...args: string[]) =>
    () =>
      timed(process.execPath, [bin, ...args], { ...process.env, AGENT_BRIDGE_HOME: home });
  return [
    { label: 'logs -n 20, 111 MB log', run: ab(long, 'logs', '-n', '20') },
    { label: 'logs -n 20, 20-line log', run: ab(short, 'logs', '-n', '20') },
    {
      label: 'tail -n 20, 111 MB log',
      run: () => timed('tail', ['-n', '20', path.join(long, 'audit.log')], process.env),
    },
    { label: 'node -e 0', run: () => timed(process.execPath, ['-e', '0'], process.env) },
    { label: 'recordings, 1,000 files', run: ab(long, 'recordings') },
    { label: 'recordings, 200 files', run: ab(short, 'recordings') },
    { label: 'recordings --json, 1,000 files', run: ab(long, 'recordings', '--json') },
    { label: 'recordings --json, 200 files', run: ab(short, 'recordings', '--json') },
    { label: 'GET /api/recordings (backend), 1,000 files', run: () => apiRecordings(root, long) },
    { label: 'GET /api/recordings (backend), 200 files', run: () => apiRecordings(root, short) },
  ];
}

async function run(ctx: BenchContext): Promise<Result> {
  const runs = ctx.reps ?? (ctx.quick ? RUNS.quick : RUNS.full);
  const result: Result = {
    name: 'history-commands',
    params: { runs },
    measurements: [],
    ratios: [],
    notes: [
      'wall time spawn to exit; peak RSS from GNU time; the backend listing runs in the bench process (no RSS)',
      'the short folder is a copy of the history folder with the audit log cut to 20 lines and 200 recordings left (one full page of the API; the CLI shows 50)',
    ],
    problems: [],
  };
  const history = await historyFolder(ctx.root, path.join(ctx.root, '.bench-out'), ctx.log);
  const dir = await mkdtemp(path.join(tmpdir(), 'agent-bridge-bench-history-'));
  const long = path.join(dir, 'long');
  const short = path.join(dir, 'short');
  copyFolder(history, long);
  mkdirSync(path.dirname(short), { recursive: true });
  shortFolder(history, short);
  const all = cases(ctx.root, long, short);
  const samples = new Map<string, Timed[]>(all.map((c) => [c.label, []]));
  try {
    for (let rep = 0; rep < runs + 1; rep++) {
      for (const [i] of all.entries()) {
        const c = all[(i + rep) % all.length]!;
        const sample = await c.run();
        if (rep > 0) samples.get(c.label)!.push(sample); // the first round warms the caches
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  for (const c of all)
    result.measurements.push(
      measurement(
        c.label,
        samples.get(c.label)!.map((s) => s.ms),
      ),
    );
  const ms = (label: string) => median(samples.get(label)!.map((s) => s.ms));
  const rss = (label: string) => median(samples.get(label)!.map((s) => s.rssKb)) / 1024;
  result.ratios.push(
    atMost(
      'logs: 111 MB log / 20-line log (time)',
      ms('logs -n 20, 111 MB log') / ms('logs -n 20, 20-line log'),
      FLAT_TARGET,
    ),
    atMost(
      'logs: 111 MB log / 20-line log (peak RSS)',
      rss('logs -n 20, 111 MB log') / rss('logs -n 20, 20-line log'),
      FLAT_TARGET,
    ),
    info('logs on the 111 MB log: peak RSS, MB', rss('logs -n 20, 111 MB log')),
    info(
      'logs / tail on the 111 MB log (time; node starts in the difference)',
      ms('logs -n 20, 111 MB log') / ms('tail -n 20, 111 MB log'),
    ),
    info('logs − node -e 0 on the 111 MB log, ms', ms('logs -n 20, 111 MB log') - ms('node -e 0')),
    atMost(
      'recordings: 1,000 / 200 files (time)',
      ms('recordings, 1,000 files') / ms('recordings, 200 files'),
      FLAT_TARGET,
    ),
    atMost(
      'recordings --json: 1,000 / 200 files (time)',
      ms('recordings --json, 1,000 files') / ms('recordings --json, 200 files'),
      FLAT_TARGET,
    ),
    info(
      'recordings: 1,000 / 200 files (peak RSS)',
      rss('recordings, 1,000 files') / rss('recordings, 200 files'),
    ),
    info(
      'GET /api/recordings (backend): 1,000 / 200 files (time)',
      ms('GET /api/recordings (backend), 1,000 files') / ms('GET /api/recordings (backend), 200 files'),
    ),
  );
  return result;
}

export const historyCommands: Benchmark = {
  name: 'history-commands',
  description:
    '`logs` on a 111 MB audit log vs a short one and tail; `recordings` and the API with 1,000 files vs 10',
  noDataFolder: 'it measures a long history and a short one side by side itself',
  run,
};
