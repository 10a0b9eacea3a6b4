/**
 * Runs the benchmarks: `npm run bench [-- --quick] [-- --only <name>]`. Every number is a ratio against a
 * baseline measured in the same run; a missed target is reported, never a failure. Results also go to
 * .bench-out/results.json (results-<name>.json, results-quick.json for a partial or smoke run).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { clusterInbox } from './cluster-inbox.js';
import { daemonSessions } from './daemon-sessions.js';
import { detectorThroughput } from './detector-throughput.js';
import { discordLatency } from './discord-latency.js';
import { historyCommands } from './history-commands.js';
import { idleCpu } from './idle-cpu.js';
import { relayThroughput } from './relay-throughput.js';
import { sessionHost } from './session-host.js';
import { promptLatency } from './prompt-latency.js';
import { copyFolder, historyFolder } from './history.js';
import { problemBlock, renderResult, summary } from './report.js';
import { slowReader } from './slow-reader.js';
import { startup } from './startup.js';
import { structuredLatency } from './structured-latency.js';
import { telegramLatency } from './telegram-latency.js';
import { webTerminal } from './web-terminal.js';
import type { Benchmark, BenchContext, Result } from './types.js';

/** Every benchmark, in the order they run. */
const registry: Benchmark[] = [
  startup,
  relayThroughput,
  slowReader,
  detectorThroughput,
  promptLatency,
  structuredLatency,
  telegramLatency,
  discordLatency,
  daemonSessions,
  webTerminal,
  idleCpu,
  historyCommands,
  clusterInbox,
  sessionHost,
];

const USAGE = `usage: npm run bench -- [--quick] [--only <name>] [--root <dir>] [--reps <n>]
  --quick        smaller sizes and fewer repetitions (a smoke run)
  --only <name>  run one benchmark: ${registry.map((b) => b.name).join(', ')}
  --root <dir>   measure another agent-bridge checkout, already built (default: this one)
  --reps <n>     repetitions per measurement (default: startup 20, relay-throughput 3, slow-reader 3)`;

interface Options {
  quick: boolean;
  only: string | undefined;
  root: string | undefined;
  reps: number | undefined;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      root: { type: 'string' },
      reps: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const reps = values.reps === undefined ? undefined : Number(values.reps);
  if (reps !== undefined && (!Number.isInteger(reps) || reps < 1))
    throw new Error(`bad --reps: ${values.reps}`);
  return { quick: values.quick ?? false, only: values.only, root: values.root, reps };
}

function machine() {
  const cores = cpus();
  return {
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: cores.length,
    cpuModel: cores[0]?.model ?? 'unknown',
    loadavg: loadavg().map((n) => Math.round(n * 100) / 100),
  };
}

/** Temp data folders of one pass: empty ones, or copies of the history folder; removed after the pass. */
function homes(ctx: Omit<BenchContext, 'home'>, history: string | null) {
  const made: string[] = [];
  return {
    home: async () => {
      const dir = await mkdtemp(path.join(tmpdir(), `agent-bridge-bench-${ctx.dataFolder}-`));
      made.push(dir);
      if (!history) return dir;
      const copy = path.join(dir, 'home');
      copyFolder(history, copy);
      return copy;
    },
    clean: () => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))),
  };
}

async function runPass(bench: Benchmark, ctx: BenchContext): Promise<Result> {
  try {
    return await bench.run(ctx);
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    const result: Result = {
      name: bench.name,
      params: {},
      measurements: [],
      ratios: [],
      notes: [],
      problems: [],
    };
    result.problems.push(`the benchmark crashed: ${message}`);
    return result;
  }
}

async function runAll(
  selected: Benchmark[],
  base: Omit<BenchContext, 'home' | 'dataFolder'>,
  history: string,
) {
  const results: Result[] = [];
  for (const bench of selected) {
    const folders = bench.noDataFolder ? (['empty'] as const) : (['empty', 'history'] as const);
    for (const dataFolder of folders) {
      const title = bench.noDataFolder ? '' : ` [${dataFolder} data folder]`;
      console.log(`\n=== ${bench.name}${title}: ${bench.description}${base.quick ? ' (quick)' : ''}`);
      if (bench.noDataFolder) console.log(`(one pass: ${bench.noDataFolder})`);
      const started = performance.now();
      const load = loadavg()[0]!;
      if (load > cpus().length) {
        console.log(
          `(load average ${load.toFixed(1)} on ${cpus().length} cores: other work is running, expect noise)`,
        );
      }
      const folder = homes({ ...base, dataFolder }, dataFolder === 'history' ? history : null);
      const result = await runPass(bench, { ...base, dataFolder, home: folder.home });
      await folder.clean();
      result.params.dataFolder = dataFolder;
      result.params.loadBefore = load;
      result.params.loadAfter = loadavg()[0];
      result.params.seconds = Math.round((performance.now() - started) / 100) / 10;
      results.push(result);
      console.log(renderResult(result));
      console.log(
        `(${bench.name}${title} took ${result.params.seconds} s, load ${load.toFixed(1)} → ${loadavg()[0]!.toFixed(1)})`,
      );
    }
  }
  return results;
}

/** `results.json` for a full run; `results-<name>.json`, `results-quick.json` for the others. */
function resultsFile(options: Options): string {
  return `results${options.only ? `-${options.only}` : ''}${options.quick ? '-quick' : ''}.json`;
}

async function main(): Promise<void> {
  let options: Options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  const selected = options.only ? registry.filter((b) => b.name === options.only) : registry;
  if (selected.length === 0) {
    console.error(`no benchmark named "${options.only}"\n${USAGE}`);
    process.exit(2);
  }
  const here = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
  const root = options.root ? path.resolve(options.root) : here;
  const ctx: Omit<BenchContext, 'home' | 'dataFolder'> = {
    quick: options.quick,
    root,
    log: (line) => process.stderr.write(`${line}\n`),
  };
  if (options.reps !== undefined) ctx.reps = options.reps;
  const outDir = path.join(here, '.bench-out');
  const history = await historyFolder(root, outDir, ctx.log);
  const before = machine();
  console.log(
    `agent-bridge benchmarks: node ${before.node}, ${before.cpus} x ${before.cpuModel}, ` +
      `load ${before.loadavg.join(' ')}${options.quick ? ', QUICK (smoke run: do not quote)' : ''}` +
      (root === here ? '' : `\nmeasuring the checkout at ${root}`),
  );
  const startedAt = new Date().toISOString();
  const wallStarted = performance.now();
  const results = await runAll(selected, ctx, history);
  const wallSeconds = Math.round((performance.now() - wallStarted) / 1000);
  await mkdir(outDir, { recursive: true });
  // A full run's results are not overwritten by a partial or smoke run after it.
  const file = path.join(outDir, resultsFile(options));
  const report = {
    startedAt,
    quick: options.quick,
    root,
    machine: before,
    loadAfter: machine().loadavg,
    wallSeconds,
    results,
  };
  await writeFile(file, JSON.stringify(report, null, 2) + '\n');
  console.log(`\n${summary(results)}`);
  console.log(
    `\nwall time of this run: ${wallSeconds} s; load average ${before.loadavg.join(' ')} at the start, ` +
      `${machine().loadavg.join(' ')} at the end`,
  );
  console.log(`results: ${path.relative(process.cwd(), file) || file}`);
  const problems = results.flatMap((r) => r.problems.map((p) => `${r.name}: ${p}`));
  if (problems.length > 0) console.log(`\n${problemBlock('all benchmarks', problems)}`);
}

await main();
