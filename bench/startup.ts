import { rm } from 'node:fs/promises';
import type { Benchmark, BenchContext, Ratio, Result } from './types.js';
import {
  agentBridgeBin,
  atMost,
  exitProblem,
  formatMs,
  info,
  measurement,
  median,
  runTimed,
} from './util.js';

const RUNS = { quick: 8, full: 20 };
const WARMUPS = 2;
const TARGET = 2;

interface Case {
  label: string;
  args: string[];
  /** Upper bound for the ratio against `node -e 0`; null to only report it. */
  target: number | null;
}

function cases(root: string): Case[] {
  const bin = agentBridgeBin(root);
  return [
    { label: 'node -e 0', args: ['-e', '0'], target: null },
    { label: 'agent-bridge --version', args: [bin, '--version'], target: TARGET },
    { label: 'agent-bridge --help', args: [bin, '--help'], target: TARGET },
    // Discovery looks for every agent on PATH and in known folders: more work, reported without a target.
    { label: 'agent-bridge agents --json', args: [bin, 'agents', '--json'], target: null },
    // They open the store (and reap dead sessions): what a long history would slow down.
    { label: 'agent-bridge status', args: [bin, 'status'], target: null },
    { label: 'agent-bridge approvals --json', args: [bin, 'approvals', '--json'], target: null },
  ];
}

async function run(ctx: BenchContext): Promise<Result> {
  const runs = ctx.reps ?? (ctx.quick ? RUNS.quick : RUNS.full);
  const result: Result = {
    name: 'startup',
    params: { runs, warmups: WARMUPS },
    measurements: [],
    ratios: [],
    notes: ['wall time from spawn to exit (stdio pipes closed); ratio = median / median of `node -e 0`'],
    problems: [],
  };
  const all = cases(ctx.root);
  const times = new Map<string, number[]>(all.map((c) => [c.label, []]));
  // Not this machine's own data folder: an empty one, or one with history (the commands that open the store).
  const home = await ctx.home();
  const env = { ...process.env, AGENT_BRIDGE_HOME: home };
  try {
    for (let rep = 0; rep < WARMUPS + runs; rep++) {
      // Interleaved, and rotated so no case always runs first.
      const order = all.map((_, i) => all[(i + rep) % all.length]!);
      for (const c of order) {
        const child = await runTimed(process.execPath, c.args, { cwd: ctx.root, env });
        const problem = exitProblem(c.label, child);
        if (problem && !result.problems.includes(problem)) result.problems.push(problem);
        if (rep >= WARMUPS) times.get(c.label)!.push(child.ms);
      }
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
  for (const c of all) result.measurements.push(measurement(c.label, times.get(c.label)!));
  result.ratios = ratiosAgainstNode(all, times);
  const baseline = median(times.get('node -e 0')!);
  ctx.log(`  node -e 0: ${formatMs(baseline)} (median of ${runs})`);
  return result;
}

function ratiosAgainstNode(all: Case[], times: Map<string, number[]>): Ratio[] {
  const baseline = median(times.get('node -e 0')!);
  return all
    .filter((c) => c.label !== 'node -e 0')
    .map((c) => {
      const value = median(times.get(c.label)!) / baseline;
      const label = `${c.label} vs node -e 0 (time)`;
      return c.target === null ? info(label, value) : atMost(label, value, c.target);
    });
}

export const startup: Benchmark = {
  name: 'startup',
  description: 'start-up time of agent-bridge commands vs a bare `node -e 0`',
  run,
};
