import {
  connect,
  credsAuthenticator,
  nkeyAuthenticator,
  type Authenticator,
  type NatsConnection,
  type TlsOptions,
} from '@nats-io/transport-node';
import { subjects } from './names.js';
import { ClusterConfigError, readCredentials, type ClusterSettings } from './settings.js';

export { ClusterConfigError, parseServers, type ClusterSettings } from './settings.js';

/** Connects with the machine's own key, over TLS when configured; reconnects by itself for ever afterwards. */
export async function connectCluster(settings: ClusterSettings, version: string): Promise<NatsConnection> {
  const authenticator = authenticatorFrom(settings.credentials);
  const tls = tlsOptions(settings);
  try {
    return await connect({
      servers: settings.servers,
      authenticator,
      ...(tls ? { tls } : {}),
      name: `agent-bridge ${version} ${settings.role} ${settings.name}`,
      inboxPrefix: subjects.inbox(settings.name),
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1_000,
      pingInterval: 20_000,
    });
  } catch (error) {
    throw new ClusterConfigError(connectProblem(settings, error));
  }
}

function connectProblem(settings: ClusterSettings, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const where = settings.servers.join(', ');
  if (/authorization|authentication/i.test(message))
    return `NATS at ${where} refused ${settings.credentials} (${message}): list this machine's public key in the server's config (agent-bridge cluster init writes both)`;
  if (/tls|certificate|self.signed|ssl/i.test(message))
    return `TLS with NATS at ${where} failed (${message}): give the CA that signed the server's certificate (cluster.tls.ca)`;
  return `cannot reach NATS at ${where} (${message}): start nats-server there, or check --nats`;
}

/** The authenticator for this machine's key file (checked as readCredentials says). */
export function authenticatorFrom(file: string): Authenticator {
  const credentials = readCredentials(file);
  return credentials.kind === 'creds'
    ? credsAuthenticator(new TextEncoder().encode(credentials.text))
    : nkeyAuthenticator(new TextEncoder().encode(credentials.seed));
}

function tlsOptions(settings: ClusterSettings): TlsOptions | undefined {
  const tls = settings.tls;
  const wantsTls = settings.servers.some((s) => s.startsWith('tls://'));
  if (!tls && !wantsTls) return undefined;
  return {
    ...(tls?.ca ? { caFile: tls.ca } : {}),
    ...(tls?.cert ? { certFile: tls.cert } : {}),
    ...(tls?.key ? { keyFile: tls.key } : {}),
  };
}
