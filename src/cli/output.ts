/** Tables on a TTY, tab-separated lines in pipes, JSON for scripts; colour only on a TTY that wants it. */
export interface OutputTarget {
  isTTY: boolean;
  write(text: string): void;
  env: NodeJS.ProcessEnv;
}

export const stdoutTarget: OutputTarget = {
  get isTTY() {
    return Boolean(process.stdout.isTTY);
  },
  write: (text) => void process.stdout.write(text),
  env: process.env,
};

export function useColour(target: OutputTarget): boolean {
  return target.isTTY && !target.env.NO_COLOR && target.env.TERM !== 'dumb';
}

export function paint(
  target: OutputTarget,
  code: 'green' | 'yellow' | 'red' | 'dim' | 'bold',
  text: string,
): string {
  if (!useColour(target)) return text;
  const codes = { green: 32, yellow: 33, red: 31, dim: 2, bold: 1 } as const;
  return `\x1b[${codes[code]}m${text}\x1b[0m`;
}

// Escape sequences are zero-width: strip them to measure.
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

export function printTable(target: OutputTarget, headers: string[], rows: string[][]): void {
  if (!target.isTTY) {
    target.write([headers, ...rows].map((row) => row.join('\t')).join('\n') + '\n');
    return;
  }
  const widths = headers.map((h, i) =>
    Math.max(h.length, ...rows.map((r) => (r[i] ?? '').replace(ANSI, '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) =>
        i === cells.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - cell.replace(ANSI, '').length),
      )
      .join('  ')
      .trimEnd();
  target.write([paint(target, 'bold', line(headers)), ...rows.map(line)].join('\n') + '\n');
}

export function printJson(target: OutputTarget, value: unknown): void {
  target.write(JSON.stringify(value, null, 2) + '\n');
}
