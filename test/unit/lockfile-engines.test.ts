// Node 20 is supported: no package npm installs for us may declare that it is not (EBADENGINE at `npm ci`).
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

interface LockedPackage {
  version?: string;
  optional?: boolean;
  engines?: { node?: string } | string[];
}

const root = new URL('../../', import.meta.url);
const read = (file: string) => JSON.parse(readFileSync(new URL(file, root), 'utf8')) as unknown;

describe('the lockfile', () => {
  it('installs only packages that run on the oldest Node our engines field allows', () => {
    const ours = (read('package.json') as { engines: { node: string } }).engines.node;
    const lowest = semver.minVersion(ours)!.version;
    const packages = (read('package-lock.json') as { packages: Record<string, LockedPackage> }).packages;
    const refused = Object.entries(packages)
      .filter(([name, pkg]) => name !== '' && !pkg.optional)
      .map(([name, pkg]) => ({ name, node: Array.isArray(pkg.engines) ? undefined : pkg.engines?.node }))
      .filter((pkg) => pkg.node && !semver.satisfies(lowest, pkg.node))
      .map((pkg) => `${pkg.name} wants node ${pkg.node}`);
    expect(refused).toEqual([]);
  });
});
