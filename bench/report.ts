import type { Ratio, Result } from './types.js';
import { formatBytes, formatMs } from './util.js';

/** A plain text table: the first column left-aligned, the others right-aligned. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, col) => Math.max(h.length, ...rows.map((row) => (row[col] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, col) => (col === 0 ? cell.padEnd(widths[col]!) : cell.padStart(widths[col]!)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(headers), rule, ...rows.map(line)].join('\n');
}

export function renderResult(result: Result): string {
  const parts: string[] = [];
  const measured = result.measurements.map((m) => [
    m.label,
    formatMs(m.medianMs),
    formatMs(Math.min(...m.samplesMs)),
    formatMs(Math.max(...m.samplesMs)),
    String(m.samplesMs.length),
    m.bytes === undefined ? '' : formatBytes(m.bytes),
    m.mbPerSec === undefined ? '' : m.mbPerSec.toFixed(1),
  ]);
  parts.push(table(['measured', 'median', 'min', 'max', 'n', 'bytes', 'MB/s'], measured));
  if (result.ratios.length > 0) {
    const ratioRows = result.ratios.map((r) => [
      r.label,
      r.value.toFixed(3),
      r.target,
      r.meetsTarget === null ? '' : r.meetsTarget ? 'ok' : 'MISSED',
    ]);
    parts.push(table(['ratio', 'value', 'target', ''], ratioRows));
  }
  if (result.notes.length > 0) parts.push(result.notes.map((note) => `note: ${note}`).join('\n'));
  if (result.problems.length > 0) parts.push(problemBlock(result.name, result.problems));
  return parts.join('\n\n');
}

export function problemBlock(name: string, problems: string[]): string {
  const bar = '!'.repeat(100);
  return [bar, `!!! ${name}: ${problems.length} PROBLEM(S)`, ...problems.map((p) => `!!! ${p}`), bar].join(
    '\n',
  );
}

/** Every ratio with a target, per benchmark, on the empty and the history data folder side by side. */
export function summary(results: Result[]): string {
  const rows: string[][] = [];
  const names = [...new Set(results.map((r) => r.name))];
  for (const name of names) {
    const passes = results.filter((r) => r.name === name);
    const empty = passes.find((r) => r.params.dataFolder === 'empty');
    const history = passes.find((r) => r.params.dataFolder === 'history');
    for (const ratio of empty?.ratios ?? []) {
      if (ratio.meetsTarget === null) continue;
      const other = history?.ratios.find((r) => r.label === ratio.label);
      const verdict = (r: Ratio | undefined) =>
        r ? `${r.value.toFixed(3)} ${r.meetsTarget ? 'ok' : 'MISSED'}` : '–';
      rows.push([
        `${name}: ${ratio.label}`,
        verdict(ratio),
        history ? verdict(other) : 'one pass',
        ratio.target,
      ]);
    }
    const problems = passes.reduce((sum, r) => sum + r.problems.length, 0);
    if (problems > 0) rows.push([`${name}: PROBLEMS`, String(problems), '', '']);
  }
  return `summary (every target; empty and history data folders)\n${table(['ratio', 'empty', 'history', 'target'], rows)}`;
}
