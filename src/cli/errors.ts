/** Errors the CLI reports as one line. UsageError exits 2 (bad usage); CliFailure exits 1. */
export class UsageError extends Error {
  override name = 'UsageError';
  readonly exitCode = 2;
}

export class CliFailure extends Error {
  override name = 'CliFailure';
  readonly exitCode = 1;
}

export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError || error instanceof CliFailure) return error.exitCode;
  // Bad configuration is bad input: fix the file.
  if (error instanceof Error && error.name === 'ConfigError') return 2;
  return 1;
}

/** One line, no stack: what went wrong and what to do. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
