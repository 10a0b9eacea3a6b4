import { systemClock } from '../../core/clock.js';
import { findConfigFile, loadConfig } from '../../config/load.js';
import { dataDir } from '../../store/paths.js';
import { openStore } from '../../store/store.js';
import { hostChannels, REMOTE_CHANNELS } from '../channel-hosting.js';
import { CliFailure } from '../errors.js';

/**
 * `agent-bridge serve`: hosts the configured channels for every agent session on this machine (sessions
 * started with `run --approve-from <channel>`), until SIGINT or SIGTERM. Prompts stay in the store meanwhile.
 */
export async function serveCommand(options: { config?: string }): Promise<number> {
  const file = findConfigFile(options.config, dataDir());
  const { config } = loadConfig(file);
  const configured = REMOTE_CHANNELS.filter((name) => (config.channels as Record<string, unknown>)[name]);
  if (configured.length === 0) {
    throw new CliFailure(
      `no channels are configured${file ? ` in ${file}` : ''}: run agent-bridge setup telegram`,
    );
  }
  const store = openStore();
  const log = (line: string) => process.stderr.write(`agent-bridge: ${line}\n`);
  const relays = await hostChannels(configured, { config, store, clock: systemClock, log });
  const hosted = relays.map((r) => r.name);
  const elsewhere = configured.filter((name) => !hosted.includes(name));
  process.stderr.write(
    `agent-bridge serve: hosting ${hosted.join(', ') || 'nothing'}${elsewhere.length ? ` (${elsewhere.join(', ')} hosted by another agent-bridge)` : ''}; Ctrl-C to stop\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await Promise.all(relays.map((relay) => relay.stop().catch(() => undefined)));
  store.close();
  return 0;
}
