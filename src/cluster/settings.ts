import { readFileSync, statSync } from 'node:fs';

/**
 * How this machine takes part in a cluster, and the checks that need no NATS client: `serve` validates its
 * flags with these before anything starts (and one machine alone never loads the client at all).
 */

/** How this machine takes part: `hub` hosts the chats and the web UI, a `node` hosts agents. */
export interface ClusterSettings {
  role: 'hub' | 'node';
  /** The node's name, or the hub's (several hubs need names of their own). */
  name: string;
  /** `nats://host:4222` or `tls://host:4222`; several separated by commas. */
  servers: string[];
  /** A file holding this machine's nkey seed (`SU…`) or a `.creds` file (a user JWT and its seed). */
  credentials: string;
  /** TLS: the CA that signed the server's certificate; a client certificate and key where the server asks. */
  tls?: { ca?: string; cert?: string; key?: string };
}

export class ClusterConfigError extends Error {
  override name = 'ClusterConfigError';
}

/** What a key file holds: a user's nkey seed, or a `.creds` file (JWT and seed). */
export type Credentials = { kind: 'creds'; text: string } | { kind: 'seed'; seed: string };

/**
 * A seed file (`SU…`, from `agent-bridge cluster init`) or a `.creds` file. It must be private: a key that
 * others on the machine can read is refused, with the fix.
 */
export function readCredentials(file: string): Credentials {
  let text: string;
  let mode: number;
  try {
    text = readFileSync(file, 'utf8');
    mode = statSync(file).mode;
  } catch (error) {
    throw new ClusterConfigError(
      `cannot read the NATS credentials ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): copy this machine's key there (agent-bridge cluster init writes one per machine)`,
    );
  }
  if ((mode & 0o077) !== 0) throw new ClusterConfigError(`${file} is readable by others: chmod 600 ${file}`);
  if (text.includes('-----BEGIN NATS USER JWT-----')) return { kind: 'creds', text };
  const seed = text.trim();
  if (/^SU[A-Z2-7]{50,}$/.test(seed)) return { kind: 'seed', seed };
  throw new ClusterConfigError(
    `${file} holds neither an nkey seed (SU…) nor a .creds file: use the file agent-bridge cluster init wrote for this machine`,
  );
}

/** `nats://h:4222,tls://h2:4222` as a list, each a NATS URL (no other schemes). */
export function parseServers(value: string): string[] {
  const servers = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (servers.length === 0) throw new ClusterConfigError('--nats needs a URL, e.g. nats://hub.example:4222');
  for (const server of servers) {
    let url: URL;
    try {
      url = new URL(server);
    } catch {
      throw new ClusterConfigError(`${server} is not a URL: use nats://host:4222 or tls://host:4222`);
    }
    if (url.protocol !== 'nats:' && url.protocol !== 'tls:')
      throw new ClusterConfigError(`${server}: use nats://host:4222 or tls://host:4222`);
    if (url.username || url.password)
      throw new ClusterConfigError(
        `${server}: put no password in the URL: use a key file (cluster.credentials, --nats-credentials)`,
      );
  }
  return servers;
}
