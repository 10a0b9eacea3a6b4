/**
 * session-host: what a session that outlives agent-bridge costs. An idle session host (its agent idle, no
 * client, or one attached) in memory and CPU against a bare Node process measured in the same run; and the
 * time from `attach` connecting to its first screen, against the same round trip on a bare WebSocket server
 * (a unix socket, a hello, a reply of the same size): the difference is the client checking the socket and
 * its secret, and the host reading its screen out.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import WebSocket, { WebSocketServer } from 'ws';
import type * as ClockModule from '../src/core/clock.js';
import type * as ConnectionModule from '../src/sessions/host/host-connection.js';
import type * as SpawnModule from '../src/sessions/host/spawn-host.js';
import { importDist, sleep } from './support.js';
import type { Benchmark, BenchContext, Result } from './types.js';
import { atMost, info, measurement, median } from './util.js';

const HOSTS = 3;
const IDLE_MS = { quick: 2_000, full: 10_000 };
/**
 * Before the idle window: V8's memory reducer collects a fresh process's garbage 1–3 times, ~8 s apart, from
 * ~8 s after it starts (a host: 8–10 s alone, later on a busy machine), ~3 ticks each in a host and none in a
 * bare Node; counted, it reads as polling that is not there. The ticks of that settling are printed apart.
 */
const SETTLE_MS = 30_000;
/** An idle agent: it drew its first line, then waits. */
const IDLE_AGENT = `printf 'agent ready\\n'; exec sleep 100000`;
const ATTACHES = { quick: 10, full: 40 };
/** A screen worth redrawing: a full scrollback of numbered lines under a colourful prompt. */
const BUSY_SCREEN = `for i in $(seq 1 1200); do printf '\\033[3%dm%05d\\033[0m %s\\n' $((i % 7)) $i 'some output of the agent'; done; exec sleep 100000`;

interface Modules {
  spawnHost: typeof SpawnModule.spawnHost;
  HostConnection: typeof ConnectionModule.HostConnection;
  clock: typeof ClockModule.systemClock;
}

async function load(root: string): Promise<Modules> {
  const { spawnHost } = await importDist<typeof SpawnModule>(root, 'sessions/host/spawn-host.js');
  const { HostConnection } = await importDist<typeof ConnectionModule>(
    root,
    'sessions/host/host-connection.js',
  );
  const { systemClock } = await importDist<typeof ClockModule>(root, 'core/clock.js');
  return { spawnHost, HostConnection, clock: systemClock };
}

/** Resident memory (KiB) and CPU time used so far (clock ticks) of a process, from /proc. */
function usage(pid: number): { rssKiB: number; ticks: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { rssKiB, ticks: Number(fields[11]) + Number(fields[12]) };
}

/** `record`: as `run` starts it by default (its output recorded), else as `run --no-record`. */
async function startHost(m: Modules, dataDir: string, script: string, record = false) {
  const id = randomUUID();
  const recording = record ? path.join(dataDir, `${id}.cast`) : null;
  const spawned = await m.spawnHost({
    dataDir,
    session: {
      id,
      agent: 'custom',
      label: 'bench',
      cwd: dataDir,
      command: '/bin/sh',
      recording,
      webInput: true,
      webView: true,
      hooks: false,
      startedAt: Date.now(),
    },
    args: ['-c', script],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dataDir },
    cols: 120,
    rows: 40,
    recording: record ? { width: 120, height: 40, timestamp: Math.floor(Date.now() / 1000) } : null,
    lines: false,
    hookToken: null,
    endWithController: false,
    version: 'bench',
  });
  // Its spawner attaches first (the agent's output is read from then on), then lets it go: a detached session.
  const connection = await m.HostConnection.open({
    dataDir,
    socket: spawned.socket,
    client: 'terminal',
    control: 'if-free',
    clock: m.clock,
  });
  connection.start();
  return { ...spawned, connection };
}

/**
 * Memory and CPU of idle session hosts, and of bare Node processes alongside (the baseline): HOSTS recorded
 * (the default: their recordings' thread parks once quiet) and HOSTS with `--no-record`.
 */
async function idle(ctx: BenchContext, m: Modules, dataDir: string, result: Result): Promise<void> {
  const bare: ChildProcess[] = [];
  const hosts = [];
  try {
    for (let i = 0; i < HOSTS; i++) {
      bare.push(spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { stdio: 'ignore' }));
      hosts.push(await startHost(m, dataDir, IDLE_AGENT, true));
    }
    for (let i = 0; i < HOSTS; i++) hosts.push(await startHost(m, dataDir, IDLE_AGENT, false));
    // One of each kind keeps its spawner attached; the others are detached (no client at all).
    const detached = hosts.filter((_, i) => i % HOSTS !== 0);
    for (const host of detached) {
      host.connection.send({ type: 'release' });
      host.connection.close();
    }
    const started = hosts.map((h) => usage(h.hostPid).ticks);
    await sleep(SETTLE_MS);
    const window = ctx.quick ? IDLE_MS.quick : IDLE_MS.full;
    const before = [...hosts.map((h) => usage(h.hostPid)), ...bare.map((b) => usage(b.pid!))];
    const all = hosts.length;
    const settlingTicks = started.reduce((sum, ticks, i) => sum + before[i]!.ticks - ticks, 0);
    await sleep(window);
    const after = [...hosts.map((h) => usage(h.hostPid)), ...bare.map((b) => usage(b.pid!))];
    const recordedRss = median(after.slice(0, HOSTS).map((u) => u.rssKiB));
    const unrecordedRss = median(after.slice(HOSTS, all).map((u) => u.rssKiB));
    const bareRss = median(after.slice(all).map((u) => u.rssKiB));
    const ticks = (from: number, to: number) =>
      after.slice(from, to).reduce((sum, u, i) => sum + u.ticks - before[from + i]!.ticks, 0);
    const hostTicks = ticks(0, all);
    const bareTicks = ticks(all, all + HOSTS);
    result.ratios.push(
      atMost('idle session host RSS / bare node RSS (recorded: the default)', recordedRss / bareRss, 1.6),
      atMost('idle session host RSS / bare node RSS (--no-record)', unrecordedRss / bareRss, 1.6),
      info('idle session host RSS, recorded (MiB)', recordedRss / 1024),
      info('idle session host RSS, --no-record (MiB)', unrecordedRss / 1024),
      info('bare node RSS (MiB)', bareRss / 1024),
      // Idle means idle: no timer, no poll. +1 keeps the ratio finite when both are 0.
      // Per host: the bare processes are HOSTS, the hosts twice as many.
      atMost(
        `idle CPU ticks over ${window / 1000} s, hosts / bare node (+1 each)`,
        (hostTicks / 2 + 1) / (bareTicks + 1),
        2,
      ),
      info(`idle CPU ticks over ${window / 1000} s, ${all} hosts`, hostTicks),
      info(`CPU ticks while settling (${SETTLE_MS / 1000} s from the start), ${all} hosts`, settlingTicks),
    );
    result.notes.push(
      `${all} hosts whose agent printed a line and sleeps (${HOSTS} recorded, ${HOSTS} --no-record; of each, one with its spawner still attached, the others detached: no client); measured from ${SETTLE_MS / 1000} s after start (a recorded host's recordings' thread parks 20 s after its last output, PARK_AFTER_MS); RSS median, CPU summed over the window`,
    );
  } finally {
    for (const host of hosts) {
      host.connection.close();
      process.kill(host.hostPid, 'SIGTERM');
    }
    for (const child of bare) child.kill();
  }
}

/** A bare WebSocket server on a unix socket that answers a hello with `reply`: the transport's own cost. */
async function bareServer(socket: string, reply: string): Promise<() => Promise<void>> {
  const server = createServer();
  const sockets = new WebSocketServer({ server });
  sockets.on('connection', (ws) => ws.once('message', () => ws.send(reply)));
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return () => new Promise((resolve) => server.close(() => resolve()));
}

function bareAttach(socket: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws+unix://${socket}:/`);
    ws.on('open', () => ws.send('{"type":"hello"}'));
    ws.once('message', () => {
      resolve(performance.now() - started);
      ws.close();
    });
    ws.on('error', reject);
  });
}

/** Attach to first screen: connect, hello with the secret, the welcome carrying the serialized screen. */
async function attach(ctx: BenchContext, m: Modules, dataDir: string, result: Result): Promise<void> {
  const host = await startHost(m, dataDir, BUSY_SCREEN);
  const reps = ctx.reps ?? (ctx.quick ? ATTACHES.quick : ATTACHES.full);
  try {
    await sleep(1_500); // the screen is drawn and parsed
    const sample = await m.HostConnection.open({
      dataDir,
      socket: host.socket,
      client: 'terminal',
      clock: m.clock,
    });
    const screenBytes = Buffer.byteLength(sample.welcome.screen);
    const welcomeBytes = Buffer.byteLength(JSON.stringify(sample.welcome));
    sample.close();
    const bareSocket = path.join(dataDir, 'bare.sock');
    const stop = await bareServer(bareSocket, JSON.stringify(sample.welcome));
    const ours: number[] = [];
    const bare: number[] = [];
    try {
      for (let i = 0; i < reps; i++) {
        const started = performance.now();
        const connection = await m.HostConnection.open({
          dataDir,
          socket: host.socket,
          client: 'terminal',
          clock: m.clock,
        });
        ours.push(performance.now() - started);
        connection.close();
        bare.push(await bareAttach(bareSocket));
      }
    } finally {
      await stop();
    }
    result.measurements.push(measurement('attach → first screen (session host)', ours));
    result.measurements.push(measurement('hello → same-size reply (bare ws server)', bare));
    result.ratios.push(
      atMost('attach → first screen / bare round trip', median(ours) / median(bare), 4),
      info('attach → first screen p50 (ms)', median(ours)),
    );
    result.notes.push(
      `the screen: 1,200 coloured lines (200 of scrollback redrawn), ${screenBytes} bytes of ANSI in a ${welcomeBytes}-byte welcome; ${reps} attaches`,
    );
  } finally {
    host.connection.close();
    process.kill(host.hostPid, 'SIGTERM');
  }
}

async function run(ctx: BenchContext): Promise<Result> {
  const result: Result = {
    name: 'session-host',
    params: { hosts: HOSTS },
    measurements: [],
    ratios: [],
    notes: [],
    problems: [],
  };
  const m = await load(ctx.root);
  const dataDir = await mkdtemp(path.join(tmpdir(), 'ab-bench-host-'));
  try {
    ctx.log('  idle session hosts, memory and CPU');
    await idle(ctx, m, dataDir, result);
    ctx.log('  attach → first screen');
    await attach(ctx, m, dataDir, result);
  } catch (error) {
    result.problems.push(`session-host: ${(error as Error).message}`);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
  return result;
}

export const sessionHost: Benchmark = {
  name: 'session-host',
  description: 'an idle session host in memory and CPU, and attach → first screen',
  run,
};
