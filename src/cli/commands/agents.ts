import { currentDiscoveryEnv } from '../../agents/discovery.js';
import { discoverAll } from '../../agents/registry.js';
import { agentDrivers } from '../../agents/types.js';
import { paint, printJson, printTable, stdoutTarget, type OutputTarget } from '../output.js';

export async function agentsCommand(
  options: { json?: boolean },
  target: OutputTarget = stdoutTarget,
): Promise<void> {
  const found = await discoverAll(currentDiscoveryEnv());
  if (options.json) {
    printJson(
      target,
      found.map(({ spec, discovered }) => ({
        id: spec.id,
        name: spec.displayName,
        found: discovered.found,
        path: discovered.found ? discovered.command : null,
        searched: discovered.searched,
        install: spec.installHint,
        skipPermissionsFlag: spec.skipPermissionsFlag ?? null,
        canResume: Boolean(spec.resumeArgs),
        drivers: agentDrivers(spec),
      })),
    );
    return;
  }
  printTable(
    target,
    ['AGENT', 'NAME', 'STATUS', 'PATH'],
    found.map(({ spec, discovered }) => [
      spec.id,
      spec.displayName,
      discovered.found ? paint(target, 'green', 'found') : paint(target, 'red', 'not found'),
      discovered.found ? discovered.command : paint(target, 'dim', `install: ${spec.installHint}`),
    ]),
  );
}
