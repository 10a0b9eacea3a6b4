import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import type * as ClockModule from '../src/core/clock.js';
import type * as ProcessTree from '../src/drivers/terminal/process-tree.js';
import type * as StoreModule from '../src/store/store.js';
import { NATS_SERVER, startNats, type NatsWorld } from '../test/support/nats-server.js';
import { startSimNodes, type SimNode } from './cluster-nodes.js';
import { fmt, importDist, latencyRows, percentile, sleep, waitUntil } from './support.js';
import type { Benchmark, BenchContext, Result } from './types.js';
import { agentBridgeBin, info, measurement } from './util.js';

const SIZES = { quick: { nodes: 10, sessions: 4 }, full: { nodes: 50, sessions: 4 } };
/** A prompt every this many ms, across all sessions (a busy team: 20 a second through one hub). */
const PACE_MS = 50;
/** One prompt on the hub's own machine for every this many on nodes: the baseline, interleaved. */
const LOCAL_EVERY = 4;

interface Hub {
  child: ChildProcess;
  dataDir: string;
  port: number;
  token: string;
  stop(): Promise<void>;
}

/**
 * 50 nodes × 4 sessions (scripted) through one hub, a separate `serve --nats` process: how long a prompt
 * raised on a node takes to reach the hub's inbox (its web UI's event stream), against a prompt raised on the
 * hub's own machine (the baseline, interleaved); how long an answer given in the inbox takes to be decided on
 * its node; and the hub's memory with every node's sessions mirrored.
 */
async function run(ctx: BenchContext): Promise<Result> {
  const size = ctx.quick ? SIZES.quick : SIZES.full;
  const result: Result = {
    name: 'cluster-inbox',
    params: { ...size, paceMs: PACE_MS, localEvery: LOCAL_EVERY },
    measurements: [],
    ratios: [],
    notes: [
      'nats-server (Debian) with JetStream on 127.0.0.1; hub = agent-bridge serve --nats, a process of its own',
      'nodes = ClusterNode in the bench process, each with its own store; prompts are rows a session would write',
      'inbox latency: prompt written in the node store -> {"type":"prompt"} on the hub web UI /ws/events',
      'baseline: a prompt written in the hub machine store (a local session), interleaved',
    ],
    problems: [],
  };
  if (!NATS_SERVER) {
    result.problems.push('nats-server is not installed (apt-get install nats-server): nothing measured');
    return result;
  }
  const names = Array.from({ length: size.nodes }, (_, n) => `node${String(n).padStart(2, '0')}`);
  const nats = await startNats({ nodes: names });
  let hub: Hub | null = null;
  let nodes: SimNode[] = [];
  try {
    hub = await startHub(ctx, nats);
    const idleRss = rssOf(hub.child.pid!);
    const inbox = await watchInbox(hub);
    ctx.log(`  starting ${size.nodes} nodes × ${size.sessions} sessions`);
    nodes = await startSimNodes({
      root: ctx.root,
      count: size.nodes,
      sessionsPerNode: size.sessions,
      url: nats.url,
      keyFile: nats.keyFile,
    });
    await waitForMirrors(hub, size.nodes * size.sessions);
    const joinedRss = rssOf(hub.child.pid!);
    const trial = await raisePrompts(ctx, hub, nodes, inbox, result);
    const answers = await answerAll(hub, nodes, trial.cluster, result);
    const fullRss = rssOf(hub.child.pid!);
    report(result, trial, answers, { idleRss, joinedRss, fullRss }, size.nodes * size.sessions);
    inbox.close();
  } catch (error) {
    result.problems.push((error as Error).message);
  } finally {
    await Promise.all(nodes.map((n) => n.stop().catch(() => undefined)));
    await hub?.stop();
    await nats.close();
  }
  return result;
}

async function startHub(ctx: BenchContext, nats: NatsWorld): Promise<Hub> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ab-bench-hub-'));
  const args = ['serve', '--no-terminal', '--port', '0', '--nats', nats.url, '--nats-credentials'];
  const child = spawn(process.execPath, [agentBridgeBin(ctx.root), ...args, nats.keyFile('hub')], {
    cwd: dataDir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dataDir, AGENT_BRIDGE_HOME: dataDir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += String(d)));
  const url = await waitUntil(
    () => /open http:\/\/127\.0\.0\.1:(\d+)\/\?token=(\S+)/.exec(stderr) ?? undefined,
    20_000,
    'the hub web URL',
    20,
  );
  await waitUntil(
    () => (/of the cluster at/.test(stderr) ? true : undefined),
    20_000,
    'the hub in the cluster',
    20,
  );
  return {
    child,
    dataDir,
    port: Number(url[1]),
    token: url[2]!,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

interface Inbox {
  /** When each prompt id first appeared (performance.now()), and how many times. */
  seen: Map<string, { at: number; count: number }>;
  close(): void;
}

async function watchInbox(hub: Hub): Promise<Inbox> {
  const origin = `http://127.0.0.1:${hub.port}`;
  const socket = new WebSocket(`ws://127.0.0.1:${hub.port}/ws/events`, {
    headers: { Authorization: `Bearer ${hub.token}`, Origin: origin },
  });
  const seen = new Map<string, { at: number; count: number }>();
  socket.on('message', (data) => {
    const at = performance.now();
    const event = JSON.parse(String(data)) as { type: string; prompt?: { id: string } };
    if (event.type !== 'prompt' || !event.prompt) return;
    const entry = seen.get(event.prompt.id);
    if (entry) entry.count++;
    else seen.set(event.prompt.id, { at, count: 1 });
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return { seen, close: () => socket.close() };
}

async function api(hub: Hub, method: string, route: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`http://127.0.0.1:${hub.port}${route}`, {
    method,
    headers: { Authorization: `Bearer ${hub.token}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return response.json();
}

/** Until the hub's web UI lists every node session (asked every 200 ms: a bench may poll). */
async function waitForMirrors(hub: Hub, count: number): Promise<void> {
  const deadline = performance.now() + 60_000;
  for (;;) {
    const sessions = (await api(hub, 'GET', '/api/sessions')) as Array<{ host: string; ended: unknown }>;
    if (sessions.filter((s) => s.host.startsWith('node') && !s.ended).length >= count) return;
    if (performance.now() > deadline)
      throw new Error(`timed out waiting for ${count} node sessions in the hub`);
    await sleep(200);
  }
}

interface Trial {
  cluster: Array<{ id: string; node: SimNode; sessionId: string; raisedAt: number }>;
  local: Array<{ id: string; raisedAt: number }>;
  inbox: Inbox;
}

async function raisePrompts(
  ctx: BenchContext,
  hub: Hub,
  nodes: SimNode[],
  inbox: Inbox,
  result: Result,
): Promise<Trial> {
  const { openStore } = await importDist<typeof StoreModule>(ctx.root, 'store/store.js');
  const { systemClock } = await importDist<typeof ClockModule>(ctx.root, 'core/clock.js');
  const { ownProcessRef } = await importDist<typeof ProcessTree>(
    ctx.root,
    'drivers/terminal/process-tree.js',
  );
  // The hub machine's own session: a store connection of this process, as `agent-bridge run` would have.
  const local = openStore({ dir: hub.dataDir, clock: systemClock });
  const localSession = randomUUID();
  local.sessions.create({
    id: localSession,
    agent: 'shell',
    cwd: '/src/here',
    pid: null,
    recording: null,
    owner: ownProcessRef(),
  });
  const trial: Trial = { cluster: [], local: [], inbox };
  const sessions = nodes.flatMap((node) => node.sessions.map((sessionId) => ({ node, sessionId })));
  for (const [i, { node, sessionId }] of sessions.entries()) {
    const raisedAt = performance.now();
    trial.cluster.push({ id: node.raise(sessionId), node, sessionId, raisedAt });
    if (i % LOCAL_EVERY === 0) {
      const record = local.prompts.create(
        localSession,
        { ...LOCAL_PROMPT, key: `local-${i}` },
        600_000,
        'bench',
      );
      local.prompts.transition(record.id, 'routed');
      local.prompts.transition(record.id, 'awaiting_reply');
      trial.local.push({ id: record.id, raisedAt: performance.now() });
    }
    await sleep(PACE_MS);
    if (i % 50 === 49) ctx.log(`  ${i + 1} of ${sessions.length} prompts raised`);
  }
  const all = [...trial.cluster, ...trial.local];
  await waitUntil(
    () => (all.every((p) => inbox.seen.has(p.id)) ? true : undefined),
    60_000,
    'every prompt in the inbox',
    20,
  ).catch(() =>
    result.problems.push(
      `${all.filter((p) => !inbox.seen.has(p.id)).length} prompts never reached the inbox`,
    ),
  );
  local.close();
  return trial;
}

async function answerAll(
  hub: Hub,
  nodes: SimNode[],
  prompts: Trial['cluster'],
  result: Result,
): Promise<number[]> {
  const decided = new Map<string, number[]>();
  for (const node of nodes)
    node.onAnswered((sessionId) =>
      (decided.get(sessionId) ?? decided.set(sessionId, []).get(sessionId)!).push(performance.now()),
    );
  const asked: Array<{ sessionId: string; at: number }> = [];
  for (const prompt of prompts) {
    asked.push({ sessionId: prompt.sessionId, at: performance.now() });
    const answer = (await api(hub, 'POST', `/api/prompts/${prompt.id}/answer`, { answer: '1' })) as {
      ok?: boolean;
    };
    if (!answer.ok)
      result.problems.push(`answer to ${prompt.id.slice(0, 8)} not taken: ${JSON.stringify(answer)}`);
    await sleep(PACE_MS);
  }
  await waitUntil(
    () => (asked.every((a) => decided.has(a.sessionId)) ? true : undefined),
    60_000,
    'every answer decided',
    20,
  ).catch(() => result.problems.push('some answers were never decided on their node'));
  for (const [sessionId, times] of decided)
    if (times.length !== 1)
      result.problems.push(`session ${sessionId.slice(0, 8)}: ${times.length} answers applied`);
  for (const prompt of prompts) {
    const record = prompt.node.store.prompts.get(prompt.id);
    if (record?.status !== 'reply_received')
      result.problems.push(`prompt ${prompt.id.slice(0, 8)} is ${record?.status}`);
  }
  return asked.flatMap((a) => (decided.get(a.sessionId)?.[0] ?? NaN) - a.at).filter(Number.isFinite);
}

function report(
  result: Result,
  trial: Trial,
  answers: number[],
  memory: { idleRss: number; joinedRss: number; fullRss: number },
  sessions: number,
): void {
  const latency = (p: { id: string; raisedAt: number }) =>
    (trial.inbox.seen.get(p.id)?.at ?? NaN) - p.raisedAt;
  const cluster = trial.cluster.map(latency).filter(Number.isFinite);
  const local = trial.local.map(latency).filter(Number.isFinite);
  const twice = [...trial.inbox.seen.values()].filter((s) => s.count > 1).length;
  if (twice > 0) result.problems.push(`${twice} prompts reached the inbox more than once`);
  result.measurements.push(
    measurement('local prompt -> hub inbox (baseline)', local),
    measurement('node prompt -> hub inbox', cluster),
    measurement('inbox answer -> decided on its node', answers),
  );
  const mb = (bytes: number) => Math.round((bytes / 1e6) * 10) / 10;
  result.ratios.push(
    info('node inbox p50 / local inbox p50', percentile(cluster, 50) / percentile(local, 50)),
    ...latencyRows('node prompt -> inbox', cluster),
    ...latencyRows('local prompt -> inbox (baseline)', local),
    ...latencyRows('answer -> decided on node', answers),
    info('hub RSS idle (MB)', mb(memory.idleRss)),
    info(`hub RSS with ${sessions} node sessions (MB)`, mb(memory.joinedRss)),
    info('hub RSS after every prompt and answer (MB)', mb(memory.fullRss)),
    info('hub RSS full / idle', memory.fullRss / memory.idleRss),
  );
  result.notes.push(
    `node -> inbox p50 ${fmt(percentile(cluster, 50))} ms, p99 ${fmt(percentile(cluster, 99))} ms; ` +
      `local p50 ${fmt(percentile(local, 50))} ms, p99 ${fmt(percentile(local, 99))} ms; ` +
      `answer -> node p50 ${fmt(percentile(answers, 50))} ms, p99 ${fmt(percentile(answers, 99))} ms`,
  );
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

const LOCAL_PROMPT = {
  kind: 'yes_no' as const,
  confidence: 'high' as const,
  excerpt: 'Continue? (y/n)',
  detail: 'Continue? (y/n)',
  choices: [],
  safeDefault: { type: 'no' as const },
};

export const clusterInbox: Benchmark = {
  name: 'cluster-inbox',
  description: '50 nodes × 4 scripted sessions through one hub: inbox latency p50/p99 and hub memory',
  run,
};
