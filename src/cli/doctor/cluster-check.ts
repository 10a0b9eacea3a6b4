import path from 'node:path';
import type { Config } from '../../config/schema.js';
import { clusterSettings } from '../cluster-hosting.js';
import { within, type CheckResult } from './check.js';

const CONNECT_MS = 5_000;

/**
 * Many machines: does the NATS server take this machine's key, with JetStream on? Nothing is said for one
 * machine alone (no `cluster:` section): its doctor reads as before.
 */
export async function clusterCheck(config: Config | null, file: string | null): Promise<CheckResult[]> {
  if (!config?.cluster) return [];
  const base = file ? path.dirname(path.resolve(file)) : process.cwd();
  const settings = clusterSettings({}, config, base);
  if (!settings) return [];
  const who = `${settings.role} ${settings.name}`;
  const where = settings.servers.join(', ');
  const { connectCluster } = await import('../../cluster/connection.js');
  const { jetstreamManager } = await import('@nats-io/jetstream');
  const attempt = (async (): Promise<CheckResult> => {
    const nc = await connectCluster(settings, 'doctor');
    try {
      await (await jetstreamManager(nc, { checkAPI: false })).getAccountInfo();
      return { id: 'cluster', status: 'ok', detail: `${where} takes ${who}'s key; JetStream is on` };
    } catch (error) {
      return {
        id: 'cluster',
        status: 'fail',
        detail: `${where} takes ${who}'s key, but JetStream answers: ${(error as Error).message}`,
        fix: 'run nats-server with the config agent-bridge cluster init wrote (it turns JetStream on)',
      };
    } finally {
      await nc.close();
    }
  })().catch((error: unknown) => ({
    id: 'cluster',
    status: 'fail' as const,
    detail: (error as Error).message,
  }));
  return [
    await within(attempt, CONNECT_MS, () => ({
      id: 'cluster',
      status: 'fail' as const,
      detail: `no answer from NATS at ${where} in ${CONNECT_MS / 1000} s`,
      fix: 'start nats-server there, or check cluster.nats',
    })),
  ];
}
