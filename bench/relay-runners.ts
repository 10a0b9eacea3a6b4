import { createReadStream } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { spawn as spawnPty } from 'node-pty';
import { agentBridgeBin, exitProblem, RUN_TIMEOUT_MS, runTimed } from './util.js';

/** One timed run of a workload through one reader. */
export interface Sample {
  ms: number;
  /** Bytes that reached the reader (stdout of agent-bridge, or node-pty's data events). */
  bytes: number;
  /** Bytes of output found in the recording, when one was written. */
  recordedBytes?: number;
  /** Exit or recording problem (lost bytes are judged by the caller, who knows the expected size). */
  problem?: string;
}

/** The baseline: node-pty in this process, Buffers (`encoding: null`), counting bytes, nothing else. */
export function rawNodePty(script: string, cwd: string, cols = 80, rows = 24): Promise<Sample> {
  return new Promise((resolve) => {
    const started = performance.now();
    const pty = spawnPty('sh', ['-c', script], {
      name: 'xterm-256color',
      cols,
      rows,
      cwd,
      env: process.env,
      encoding: null,
    });
    let bytes = 0;
    pty.onData((data) => {
      bytes += (data as unknown as Buffer).length;
    });
    const hung = setTimeout(() => pty.kill('SIGKILL'), RUN_TIMEOUT_MS);
    // node-pty emits exit only after its socket has closed, so every byte it will ever deliver is counted.
    pty.onExit(({ exitCode, signal }) => {
      clearTimeout(hung);
      const sample: Sample = { ms: performance.now() - started, bytes };
      if (exitCode !== 0) sample.problem = `raw node-pty child: exit code ${exitCode}, signal ${signal ?? 0}`;
      resolve(sample);
    });
  });
}

/**
 * The least any Node relay can do: node-pty (Buffers) to process.stdout with backpressure, in its own
 * process like agent-bridge. Plain CommonJS for `node -e`, so it starts without a TypeScript loader.
 */
const MINIMAL_RELAY = `
const pty = require('node-pty');
const child = pty.spawn('sh', ['-c', process.argv[1]], {
  name: 'xterm-256color', cols: 80, rows: 24, cwd: process.cwd(), env: process.env, encoding: null,
});
child.onData((data) => {
  if (!process.stdout.write(data)) {
    child.pause();
    process.stdout.once('drain', () => child.resume());
  }
});
child.onExit(({ exitCode }) => { process.exitCode = exitCode; });
`;

/** A slow terminal: read `chunkBytes` every `delayMs` with blocking reads (like a person's SSH link). */
export interface SlowReader {
  chunkBytes: number;
  delayMs: number;
}

/** Reads stdin in small blocking reads with a pause after each, then prints the byte count. */
const SLOW_READER = `
const fs = require('node:fs');
const chunk = Buffer.alloc(Number(process.env.SLOW_CHUNK));
const delay = Number(process.env.SLOW_DELAY);
const pause = new Int32Array(new SharedArrayBuffer(4));
let total = 0;
for (;;) {
  let n;
  try { n = fs.readSync(0, chunk, 0, chunk.length, null); }
  catch (e) { if (e.code === 'EAGAIN') { Atomics.wait(pause, 0, 0, 5); continue; } throw e; }
  if (n === 0) break;
  total += n;
  Atomics.wait(pause, 0, 0, delay);
}
process.stdout.write(String(total));
`;

/** `relay | slow reader` in sh; the relay's exit status comes back on stderr. */
const SLOW_PIPELINE = '( "$@"; echo "relay-exit=$?" >&2 ) | "$NODE_BIN" -e "$SLOW_READER"';

/**
 * Runs a relay process (argv), timed from spawn to exit, stdout a pipe drained as fast as it comes, or
 * through a slow reader.
 */
async function timedRelay(
  what: string,
  argv: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; slow?: SlowReader },
): Promise<Sample> {
  if (!options.slow) {
    const run = await runTimed(argv[0]!, argv.slice(1), { cwd: options.cwd, env: options.env });
    const sample: Sample = { ms: run.ms, bytes: run.stdoutBytes };
    const problem = exitProblem(what, run);
    if (problem) sample.problem = problem;
    return sample;
  }
  const env = {
    ...(options.env ?? process.env),
    NODE_BIN: process.execPath,
    SLOW_READER,
    SLOW_CHUNK: String(options.slow.chunkBytes),
    SLOW_DELAY: String(options.slow.delayMs),
  };
  const run = await runTimed('sh', ['-c', SLOW_PIPELINE, 'sh', ...argv], {
    cwd: options.cwd,
    env,
    captureStdout: true,
  });
  const status = /relay-exit=(\d+)/.exec(run.stderr);
  const sample: Sample = { ms: run.ms, bytes: Number(run.stdout.trim()) || 0 };
  if (run.code !== 0 || !status || status[1] !== '0') {
    const stderr = run.stderr.replace(/relay-exit=\d+\s*/, '').trim();
    sample.problem = `${what}: exit ${status?.[1] ?? '?'}, reader exit ${run.code}${stderr ? `; stderr: ${stderr}` : ''}`;
  }
  return sample;
}

/** The minimal relay, measured exactly like agent-bridge (spawn to exit, stdout a pipe). */
export function minimalRelay(script: string, root: string, slow?: SlowReader): Promise<Sample> {
  // cwd = root so require('node-pty') resolves to the project's copy.
  return timedRelay('minimal relay', [process.execPath, '-e', MINIMAL_RELAY, script], { cwd: root, slow });
}

export interface AgentBridgeRun {
  root: string;
  /** AGENT_BRIDGE_HOME for the run: a temp folder, emptied after each run. */
  home: string;
  record: boolean;
  /** Read agent-bridge's stdout slowly (a slow terminal); as fast as it comes when absent. */
  slow?: SlowReader;
}

/**
 * The whole `node bin/agent-bridge.js run custom [--no-record] -- sh -c <script>` process, stdin from
 * /dev/null (so --cols/--rows defaults apply), stdout a pipe drained and counted; spawn to exit.
 */
export async function agentBridgeRelay(script: string, options: AgentBridgeRun): Promise<Sample> {
  const argv = [process.execPath, agentBridgeBin(options.root), 'run', 'custom'];
  if (!options.record) argv.push('--no-record');
  argv.push('--', 'sh', '-c', script);
  const env = { ...process.env, AGENT_BRIDGE_HOME: options.home };
  const before = new Set(await takeRecordings(options.home));
  const sample = await timedRelay('agent-bridge run', argv, { cwd: options.root, env, slow: options.slow });
  // Only this run's recording: a data folder with history holds a thousand others.
  const recordings = (await takeRecordings(options.home)).filter((file) => !before.has(file));
  if (options.record) {
    if (recordings.length !== 1) {
      sample.problem = `expected 1 recording, found ${recordings.length}`;
    } else {
      sample.recordedBytes = await castOutputBytes(recordings[0]!);
    }
  } else if (recordings.length > 0) {
    sample.problem = `--no-record still wrote ${recordings.length} recording(s)`;
  }
  await Promise.all(recordings.map((file) => rm(file, { force: true })));
  return sample;
}

async function takeRecordings(home: string): Promise<string[]> {
  const dir = path.join(home, 'recordings');
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.filter((name) => name.endsWith('.cast')).map((name) => path.join(dir, name));
}

/** Sums the UTF-8 bytes of every "o" event of an asciicast v2 file, streaming (recordings can be 200 MB). */
export async function castOutputBytes(file: string): Promise<number> {
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let total = 0;
  let header = true;
  for await (const line of lines) {
    if (header) {
      header = false;
      continue;
    }
    if (!line) continue;
    const event = JSON.parse(line) as [number, string, string];
    if (event[1] === 'o') total += Buffer.byteLength(event[2], 'utf8');
  }
  return total;
}
