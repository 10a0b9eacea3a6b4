import { prewarmHost } from '../sessions/host/spawn-host.js';

/**
 * What the command does before it loads the rest of itself (bin/agent-bridge.js): for a `run` in this
 * terminal, its session host's process starts now, so Node and the host's modules load on the other core
 * while this process loads the command (~50 ms after Node is up; `run` itself could ask at ~180 ms). A guess
 * from the raw arguments; a wrong one costs a host process that ends, unused, with this one.
 */
export function startEarly(argv: readonly string[]): void {
  if (startsTerminalRun(argv.slice(2))) prewarmHost(true);
}

/**
 * `run` with a session host writing to this terminal: not `--detach` (no terminal), not the structured driver
 * (no host), not help. Only the options before `--` are the command's; the rest are the agent's.
 */
export function startsTerminalRun(args: readonly string[]): boolean {
  if (args[0] !== 'run') return false;
  const end = args.indexOf('--');
  const own = end < 0 ? args : args.slice(0, end);
  return !own.some(
    (arg, i) =>
      arg === '-h' ||
      arg === '--help' ||
      arg === '--detach' ||
      arg === '--driver=structured' ||
      (arg === '--driver' && own[i + 1] === 'structured'),
  );
}
