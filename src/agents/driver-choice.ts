import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import type { DiscoveryEnv } from './discovery.js';
import { resolveLaunch, type ResolvedLaunch } from './registry.js';
import {
  driverProblem,
  type AgentSpec,
  type DriverChoice,
  type DriverKind,
  type LaunchOptions,
} from './types.js';

/** `--help` of an agent answers within this long, or the agent is taken not to speak its protocol. */
const PROBE_TIMEOUT_MS = 15_000;

export interface ChosenDriver {
  driver: DriverKind;
  /** Said to the person when `auto` fell back to the terminal driver, and why. */
  notice?: string;
}

/** A driver that cannot run this agent (or this installed version of it): what to use instead. */
export class DriverUnavailable extends Error {
  override name = 'DriverUnavailable';
}

/**
 * The driver an agent runs under: `terminal` and `structured` as asked (refused, with what to use, where the
 * agent or its installed version cannot), `auto` its protocol where the installed version speaks it, else its
 * screen, saying so. `command` is the executable found for it.
 */
export async function chooseDriver(
  spec: AgentSpec,
  choice: DriverChoice,
  command: string,
  speaks: (spec: AgentSpec, command: string) => Promise<boolean> = speaksProtocol,
): Promise<ChosenDriver> {
  const problem = driverProblem(spec, choice);
  if (problem) throw new DriverUnavailable(problem);
  if (choice === 'terminal') return { driver: 'terminal' };
  const facet = spec.structured;
  if (!facet)
    return {
      driver: 'terminal',
      notice: `${spec.displayName} has no protocol agent-bridge speaks: using its screen (terminal driver)`,
    };
  if (spec.terminal === false || (await speaks(spec, command))) return { driver: 'structured' };
  const why = `${command} does not speak ${facet.protocol} (its ${facet.probe?.args.join(' ')} lacks ${facet.modeArgs.join(' ')})`;
  if (choice === 'structured')
    throw new DriverUnavailable(
      `${why}: upgrade ${spec.displayName} (${spec.installHint}), or use driver terminal`,
    );
  return { driver: 'terminal', notice: `${why}: using its screen (terminal driver)` };
}

const probes = new Map<string, Promise<boolean>>();

/** Whether the installed agent speaks its protocol: its own help says so. Asked once per executable version. */
export function speaksProtocol(spec: AgentSpec, command: string): Promise<boolean> {
  const probe = spec.structured?.probe;
  if (!probe) return Promise.resolve(Boolean(spec.structured));
  const key = `${command}\0${mtimeOf(command)}\0${probe.args.join(' ')}`;
  let known = probes.get(key);
  if (!known) {
    known = new Promise((resolve) =>
      execFile(
        command,
        probe.args,
        { timeout: PROBE_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024 },
        (_e, stdout, stderr) => resolve(probe.pattern.test(`${stdout}\n${stderr}`)),
      ),
    );
    probes.set(key, known);
  }
  return known;
}

function mtimeOf(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Finds the agent, chooses its driver, and builds its command line for that driver. Not installed: the
 * discovery result says so (`discovered.found` false) and the driver is left as asked, or terminal.
 */
export async function resolveDriverLaunch(
  spec: AgentSpec,
  options: LaunchOptions,
  denv: DiscoveryEnv,
  choice: DriverChoice,
): Promise<ResolvedLaunch & ChosenDriver> {
  const problem = driverProblem(spec, choice);
  if (problem) throw new DriverUnavailable(problem);
  const screenless = spec.terminal === false;
  const found = await resolveLaunch(spec, options, denv, screenless ? 'structured' : 'terminal');
  if (screenless) return { ...found, driver: 'structured' };
  if (!found.discovered.found || choice === 'terminal') return { ...found, driver: 'terminal' };
  const chosen = await chooseDriver(spec, choice, found.command);
  if (chosen.driver === 'terminal') return { ...found, ...chosen };
  return { ...(await resolveLaunch(spec, options, denv, 'structured')), ...chosen };
}
