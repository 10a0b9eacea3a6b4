import { InvalidArgumentError } from 'commander';

/** The "Examples:" block every command's --help ends with. */
export function examples(...lines: string[]): string {
  return '\nExamples:\n' + lines.map((line) => `  $ ${line}`).join('\n') + '\n';
}

export function positiveIntOrZero(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError('expected a whole number');
  return parsed;
}

export function positiveInt(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new InvalidArgumentError('expected a whole number of 1 or more');
  return parsed;
}

/** A TCP port, or 0 for any free one. */
export function portNumber(value: string): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed > 65_535)
    throw new InvalidArgumentError('expected a port number from 0 to 65535 (0: any free port)');
  return parsed;
}
