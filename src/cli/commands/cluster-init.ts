import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { nameProblem, DEFAULT_HUB } from '../../cluster/names.js';
import { newUserKey, publicKeyOf, serverConfig } from '../../cluster/server-config.js';
import type { ClusterInitFlags } from '../cluster-commands.js';
import { UsageError } from '../errors.js';
import { printJson, stdoutTarget } from '../output.js';

interface Written {
  config: string;
  keys: Array<{ name: string; role: 'hub' | 'node'; file: string; kept: boolean }>;
}

/**
 * Writes `nats-server.conf` and one key file (an nkey seed, 0600) per hub and node into a folder. A key file
 * already there is kept (its public key stays in the config): run it again with one more --node to add a
 * machine, or without one to shut that machine out.
 */
export function clusterInitCommand(flags: ClusterInitFlags): number {
  const hubs = flags.hub ?? [DEFAULT_HUB];
  const nodes = flags.node ?? [];
  if (nodes.length === 0)
    throw new UsageError('name at least one node: --node <name> (a machine with agents)');
  const names = [...hubs, ...nodes];
  for (const name of names) {
    const problem = nameProblem(name);
    if (problem) throw new UsageError(problem);
  }
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice) throw new UsageError(`${twice} is named twice: every hub and node needs a name of its own`);
  if (Boolean(flags.tlsCert) !== Boolean(flags.tlsKey))
    throw new UsageError('TLS needs both --tls-cert and --tls-key');
  const dir = path.resolve(flags.out);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const written: Written = { config: path.join(dir, 'nats-server.conf'), keys: [] };
  const user = (name: string, role: 'hub' | 'node') => {
    const file = path.join(dir, `${name}.nk`);
    const kept = existsSync(file);
    let publicKey: string;
    if (kept) publicKey = keptKey(file);
    else {
      const key = newUserKey();
      writeFileSync(file, key.seed + '\n', { mode: 0o600, flag: 'wx' });
      publicKey = key.publicKey;
    }
    written.keys.push({ name, role, file, kept });
    return { name, publicKey };
  };
  const config = serverConfig({
    host: flags.host,
    port: flags.port,
    storeDir: path.join(dir, 'jetstream'),
    hubs: hubs.map((name) => user(name, 'hub')),
    nodes: nodes.map((name) => user(name, 'node')),
    ...(flags.tlsCert && flags.tlsKey
      ? { tls: { cert: path.resolve(flags.tlsCert), key: path.resolve(flags.tlsKey) } }
      : {}),
  });
  writeFileSync(written.config, config, { mode: 0o600 });
  if (flags.json) printJson(stdoutTarget, written);
  else process.stdout.write(report(written, flags));
  return 0;
}

function keptKey(file: string): string {
  try {
    return publicKeyOf(readFileSync(file, 'utf8'));
  } catch {
    throw new UsageError(`${file} is not an nkey seed: move it aside, or choose another --out folder`);
  }
}

function report(written: Written, flags: ClusterInitFlags): string {
  const scheme = flags.tlsCert ? 'tls' : 'nats';
  const url = `${scheme}://<this-host>:${flags.port}`;
  const lines = [`wrote ${written.config}`];
  for (const key of written.keys)
    lines.push(`${key.kept ? 'kept ' : 'wrote'} ${key.file} (${key.role} ${key.name})`);
  lines.push('', 'next:', `  nats-server -c ${written.config}`);
  for (const key of written.keys) {
    const role = key.role === 'node' ? ` --node ${key.name}` : '';
    lines.push(
      `  ${key.name}: copy ${path.basename(key.file)} there (chmod 600), then: agent-bridge serve --nats ${url}${role} --nats-credentials ~/.agent-bridge/${path.basename(key.file)}`,
    );
  }
  return lines.join('\n') + '\n';
}
