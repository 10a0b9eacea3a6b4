import { createReadStream } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { spawn as spawnPty } from 'node-pty';
import { agentBridgeBin, exitProblem, RUN_TIMEOUT_MS, runTimed, type RunOptions } from './util.js';

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

/** The minimal relay, measured exactly like agent-bridge (spawn to exit, stdout a drained pipe). */
export async function minimalRelay(script: string, root: string, readBytesPerSec?: number): Promise<Sample> {
  // cwd = root so require('node-pty') resolves to the project's copy.
  const options: RunOptions = { cwd: root };
  if (readBytesPerSec) options.readBytesPerSec = readBytesPerSec;
  const run = await runTimed(process.execPath, ['-e', MINIMAL_RELAY, script], options);
  const sample: Sample = { ms: run.ms, bytes: run.stdoutBytes };
  const problem = exitProblem('minimal relay', run);
  if (problem) sample.problem = problem;
  return sample;
}

export interface AgentBridgeRun {
  root: string;
  /** AGENT_BRIDGE_HOME for the run: a temp folder, emptied after each run. */
  home: string;
  record: boolean;
  /** Read agent-bridge's stdout no faster than this (a slow terminal). */
  readBytesPerSec?: number;
}

/**
 * The whole `node bin/agent-bridge.js run custom [--no-record] -- sh -c <script>` process, stdin from
 * /dev/null (so --cols/--rows defaults apply), stdout a pipe drained and counted; spawn to exit.
 */
export async function agentBridgeRelay(script: string, options: AgentBridgeRun): Promise<Sample> {
  const args = [agentBridgeBin(options.root), 'run', 'custom'];
  if (!options.record) args.push('--no-record');
  args.push('--', 'sh', '-c', script);
  const runOptions: RunOptions = {
    cwd: options.root,
    env: { ...process.env, AGENT_BRIDGE_HOME: options.home },
  };
  if (options.readBytesPerSec) runOptions.readBytesPerSec = options.readBytesPerSec;
  const run = await runTimed(process.execPath, args, runOptions);
  const sample: Sample = { ms: run.ms, bytes: run.stdoutBytes };
  const problem = exitProblem('agent-bridge run', run);
  if (problem) sample.problem = problem;
  const recordings = await takeRecordings(options.home);
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
