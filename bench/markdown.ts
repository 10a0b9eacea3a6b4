/**
 * The last run's numbers as markdown, for bench/README.md: `npx tsx bench/markdown.ts [results.json]`. Per
 * benchmark, its medians and its ratios, the empty and the history data folder side by side, with each pass's
 * duration and load; then a summary of every target. Pipe it through prettier to align the tables.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Measurement, Ratio, Result } from './types.js';
import { formatMs } from './util.js';

interface Run {
  startedAt: string;
  wallSeconds: number;
  machine: { node: string; cpus: number; cpuModel: string; loadavg: number[] };
  loadAfter: number[];
  results: Result[];
}

const file = process.argv[2] ?? path.join(process.cwd(), '.bench-out', 'results.json');
const run = JSON.parse(readFileSync(file, 'utf8')) as Run;

function row(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

function tableOf(headers: string[], rows: string[][]): string {
  return [row(headers), row(headers.map(() => '---')), ...rows.map(row)].join('\n');
}

function measured(m: Measurement | undefined): string {
  if (!m) return '';
  const time = formatMs(m.medianMs);
  return m.mbPerSec === undefined ? time : `${time} (${m.mbPerSec.toFixed(1)} MB/s)`;
}

function verdict(r: Ratio | undefined): string {
  if (!r) return '';
  const value = r.value.toFixed(r.value >= 100 ? 1 : 3);
  if (r.meetsTarget === null) return value;
  return `**${value} ${r.meetsTarget ? 'ok' : 'MISSED'}**`;
}

function pass(result: Result): string {
  const { seconds, loadBefore, loadAfter } = result.params as Record<string, number>;
  return `${Number(seconds).toFixed(1)} s, load ${loadBefore} → ${loadAfter}`;
}

function section(name: string, passes: Result[]): string {
  const second = passes[1];
  const folders = second ? ['empty', 'history'] : ['value'];
  const timing = passes.map((p) => (second ? `${p.params.dataFolder}: ${pass(p)}` : pass(p))).join('; ');
  const lines = [`**${name}** (${timing})`, ''];
  const labels = (pick: (r: Result) => Array<{ label: string }>) => [
    ...new Set(passes.flatMap((p) => pick(p).map((x) => x.label))),
  ];
  lines.push(
    tableOf(
      ['measured (median)', ...folders],
      labels((r) => r.measurements).map((label) => [
        label,
        ...passes.map((p) => measured(p.measurements.find((m) => m.label === label))),
      ]),
    ),
  );
  const ratioLabels = labels((r) => r.ratios);
  if (ratioLabels.length > 0) {
    lines.push('');
    lines.push(
      tableOf(
        ['ratio', ...folders, 'target'],
        ratioLabels.map((label) => {
          const ratios = passes.map((p) => p.ratios.find((r) => r.label === label));
          return [label, ...ratios.map(verdict), ratios.find(Boolean)?.target ?? ''];
        }),
      ),
    );
  }
  const problems = passes.flatMap((p) => p.problems.map((text) => `${p.params.dataFolder}: ${text}`));
  if (problems.length > 0) lines.push('', ...problems.map((p) => `- PROBLEM: ${p}`));
  return lines.join('\n');
}

const names = [...new Set(run.results.map((r) => r.name))];
const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
const out = [
  `${run.machine.cpus} × ${run.machine.cpuModel}, Node ${run.machine.node}; started ${run.startedAt}, ` +
    `wall time ${run.wallSeconds} s; load average ${load(run.machine.loadavg)} at the start, ` +
    `${load(run.loadAfter)} at the end.`,
];
for (const name of names)
  out.push(
    section(
      name,
      run.results.filter((r) => r.name === name),
    ),
  );
console.log(out.join('\n\n'));
