import { readFileSync } from 'node:fs';
import semver from 'semver';
import { findConfigFile } from '../../config/load.js';
import { dataDir } from '../../store/paths.js';
import { runCheck, type Check, type CheckResult } from '../doctor/check.js';
import { clusterCheck } from '../doctor/cluster-check.js';
import { agentChecks, channelChecks, configCheck } from '../doctor/setup-checks.js';
import {
  diskCheck,
  hookCheck,
  nodeCheck,
  portCheck,
  privacyCheck,
  ptyCheck,
  storeCheck,
} from '../doctor/system-checks.js';
import { paint, printJson, stdoutTarget, type OutputTarget } from '../output.js';
import { packageFile } from '../../package-files.js';

export interface DoctorOptions {
  config?: string;
  host: string;
  port: number;
  json?: boolean;
}

const MARKS = {
  ok: ['✓', 'green'],
  warn: ['!', 'yellow'],
  fail: ['✗', 'red'],
  skip: ['–', 'dim'],
} as const;

/**
 * `agent-bridge doctor`: one line per check with what to do when it fails. Checks run at once; their lines
 * come in a fixed order, each as soon as it and those before it are done. Exit 1 when any check fails.
 */
export async function doctorCommand(
  options: DoctorOptions,
  target: OutputTarget = stdoutTarget,
): Promise<number> {
  const dir = dataDir();
  const file = safeFindConfig(options.config, dir);
  const { result: config, config: loaded } = configCheck(file);
  const checks: Array<[string, Check]> = [
    ['node', async () => nodeCheck(enginesNode(), (v, range) => semver.satisfies(v, range))],
    ['pty', ptyCheck],
    ['store', async () => storeCheck(dir)],
    ['data-folder', async () => privacyCheck(dir)],
    ['disk', async () => diskCheck(dir)],
    ['agents', () => agentChecks(loaded)],
    ['config', async () => config],
    ['channels', () => channelChecks(loaded)],
    ['cluster', () => clusterCheck(loaded, file)],
    ['web-port', () => portCheck(options.host, options.port)],
    ['hooks', () => hookCheck(dir)],
  ];
  const running = checks.map(([id, check]) => runCheck(id, check));
  const results: CheckResult[] = [];
  for (const pending of running) {
    const done = await pending;
    results.push(...done);
    if (!options.json) for (const result of done) target.write(line(target, result));
  }
  const failed = results.filter((r) => r.status === 'fail').length;
  const warned = results.filter((r) => r.status === 'warn').length;
  if (options.json) printJson(target, { ok: failed === 0, failed, warnings: warned, checks: results });
  else target.write(summary(failed, warned));
  return failed > 0 ? 1 : 0;
}

function line(target: OutputTarget, result: CheckResult): string {
  const [mark, colour] = MARKS[result.status];
  const fix = result.fix && result.status !== 'ok' && result.status !== 'skip' ? `\n    → ${result.fix}` : '';
  return `${paint(target, colour, mark)} ${result.detail}${fix}\n`;
}

function summary(failed: number, warned: number): string {
  if (failed === 0 && warned === 0) return '\nEverything agent-bridge needs works here.\n';
  const parts = [
    ...(failed ? [`${failed} failed`] : []),
    ...(warned ? [`${warned} ${warned === 1 ? 'warning' : 'warnings'}`] : []),
  ];
  return `\n${parts.join(', ')}: see the → lines above.\n`;
}

/** A --config that does not exist is the config check's failure, not the doctor's. */
function safeFindConfig(explicit: string | undefined, dir: string): string | null {
  try {
    return findConfigFile(explicit, dir);
  } catch {
    return explicit ?? null;
  }
}

function enginesNode(): string {
  const pkg = JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as {
    engines: { node: string };
  };
  return pkg.engines.node;
}
