import path from 'node:path';
import { allowlists, REMOTE_CHANNELS, remoteChannel } from '../channel-hosting.js';
import { writeConfigFile } from '../../config/edit.js';
import { appendThreadEntry } from '../../config/thread-settings.js';
import type { ThreadEntry } from '../../config/schema.js';
import { currentDiscoveryEnv } from '../../agents/discovery.js';
import { resolveDriverLaunch } from '../../agents/driver-choice.js';
import { LOCAL_CHAT, TerminalChannel } from '../../channels/terminal/terminal-channel.js';
import { findConfigFile, loadConfig } from '../../config/load.js';
import type { Config } from '../../config/schema.js';
import { systemClock } from '../../core/clock.js';
import { signalGroup } from '../../drivers/terminal/process-tree.js';
import { Daemon, type DaemonChannel, type DaemonOptions } from '../../sessions/daemon/daemon.js';
import { dataDir } from '../../store/paths.js';
import { openStore, type Store } from '../../store/store.js';
import { daemonSettings as configuredSettings } from '../daemon-settings.js';
import { LiveSessions } from '../../sessions/live-sessions.js';
import { SessionHostWatch } from '../../sessions/host/host-watch.js';
import { startWeb } from '../web-hosting.js';
import { openDaemonLog } from '../daemon-log.js';
import { serveBanner } from '../serve-banner.js';
import { readFileSync } from 'node:fs';
import { CliFailure } from '../errors.js';
import { isProcessAlive } from '../process.js';
import { userName } from '../user.js';
import { ServeCluster } from '../cluster-hosting.js';
import { packageVersion } from '../../package-files.js';

export interface ServeOptions {
  config?: string;
  /** Talk to the agents from this terminal too (default: when stdin is a terminal). */
  terminal?: boolean;
  /** The web UI (default on, 127.0.0.1:7600). */
  web: boolean;
  host: string;
  port: number;
  tlsCert?: string;
  tlsKey?: string;
  insecureBind?: boolean;
  /** Many machines: the NATS server, this machine's node name (else the hub) and its key file. */
  nats?: string;
  node?: string;
  natsCredentials?: string;
}

/**
 * `agent-bridge serve`: the daemon. Repositories and channels from agent-bridge.yaml; with no config, this
 * folder and this terminal (the embedded default). SIGHUP reloads repositories and allowlists; SIGINT/SIGTERM
 * let the sessions in session hosts go on (the next serve takes them back), stop the others (their prompts stay
 * pending in the store) and close the channels.
 */
export async function serveCommand(options: ServeOptions): Promise<number> {
  const file = findConfigFile(options.config, dataDir());
  const { config } = loadConfig(file);
  const cluster = ServeCluster.prepare(options, config, configBase(file), packageVersion());
  const withTerminal = options.terminal ?? Boolean(process.stdin.isTTY);
  const daemonLog = openDaemonLog(dataDir());
  const log = daemonLog.log;
  const channels = buildChannels(config, withTerminal, log);
  // A node serves its hubs (through the bus) even with no chat, terminal or web UI of its own.
  if (channels.length === 0 && !options.web && cluster?.settings.role !== 'node') throw nothingToServe(file);
  const store = openStore();
  const relayStore = openStore();
  const live = new LiveSessions();
  const settings = await daemonSettings(config, process.cwd(), withTerminal, configBase(file), cluster);
  const { daemon, hostWatch } = buildDaemon({
    store,
    relayStore,
    live,
    clock: systemClock,
    settings,
    channels,
    resolve: resolveAgent,
    hooks: true,
    isAlive: isProcessAlive,
    log,
    ...(file ? { saveThread: threadSaver(file)! } : {}),
    ...cluster?.daemonOptions(store, log),
  });
  let web: Awaited<ReturnType<typeof startWeb>> | null = null;
  const closeAll = closer({
    web: () => web,
    hostWatch,
    daemon,
    live,
    cluster,
    relayStore,
    store,
    daemonLog,
  });
  // A SIGINT or SIGTERM while starting (a channel slow to answer) stops it too.
  const stopped = stopSignals(stopAtOnce(live, log));
  // What the sessions started from here on say is the cluster's to hear, even before serve joins it.
  const lastMessageBeforeStart = store.channels.lastMessageId();
  const hosted = await startUnlessStopped(daemon, stopped, log).catch(closeAllThen(closeAll));
  if (!hosted) return closeAll().then(() => 0);
  if (options.web) {
    web = await startWeb(webOptions(options), {
      store,
      watchStore: relayStore,
      clock: systemClock,
      live,
      hooks: true,
      version: packageVersion(),
      log,
      promptTtlMs: () => daemon.promptTtlMs,
      ...cluster?.webOptions(),
    }).catch(closeAllThen(closeAll));
  }
  const parts = {
    store,
    watchStore: relayStore,
    daemon,
    live,
    channels: hosted,
    log,
    lastMessageBeforeStart,
  };
  await cluster?.start({ ...parts, settings: () => settings }).catch(closeAllThen(closeAll));
  process.stderr.write(
    serveBanner({
      repos: settings.repos,
      hosted: [...hosted, ...(web ? ['web'] : [])],
      webUrl: web?.url ?? null,
      file,
      terminal: withTerminal,
    }) + (cluster?.banner ?? ''),
  );
  await serveUntilStopped(
    () => void reload(daemon, options.config, withTerminal, log, cluster),
    stopped,
    log,
  );
  await closeAll();
  return 0;
}

/** A failure while starting: everything started so far is closed, then the failure is said. */
function closeAllThen(closeAll: () => Promise<void>) {
  return async (error: unknown): Promise<never> => {
    await closeAll();
    throw error;
  };
}

/**
 * The daemon, and serve as a client of every session host here: it takes back what ran when serve stopped
 * (or died) before the daemon starts anything.
 */
function buildDaemon(options: DaemonOptions): { daemon: Daemon; hostWatch: SessionHostWatch } {
  let daemon: Daemon | null = null;
  const hostWatch = new SessionHostWatch({
    store: options.store,
    clock: options.clock,
    live: options.live!,
    claim: (session, record) => daemon?.claim(session, record) ?? false,
    log: options.log,
    promptTtlMs: () => daemon?.promptTtlMs ?? {},
  });
  daemon = new Daemon({ ...options, takeOver: () => hostWatch.start() });
  return { daemon, hostWatch };
}

/**
 * Sessions in session hosts go on (the next serve takes them over); the others are stopped by agent-bridge:
 * 'terminated', with their prompts left pending in the store.
 */
async function releaseLive(live: LiveSessions): Promise<void> {
  const reason = 'agent-bridge serve stopped';
  await Promise.all(
    live
      .all()
      .map((s) =>
        s.detach(reason) ? undefined : s.stop({ keepPrompts: true, reason }).catch(() => undefined),
      ),
  );
}

function nothingToServe(file: string | null): CliFailure {
  return new CliFailure(
    `nothing to serve: no channels configured${file ? ` in ${file}` : ''} and no terminal (run agent-bridge setup slack, setup discord or setup telegram, or serve --terminal)`,
  );
}

/** Where an agent's executable is, the arguments it starts with, and the driver it runs under. */
async function resolveAgent(
  spec: Parameters<typeof resolveDriverLaunch>[0],
  launch: Parameters<typeof resolveDriverLaunch>[1],
  driver: Parameters<typeof resolveDriverLaunch>[3] = 'terminal',
) {
  const resolved = await resolveDriverLaunch(spec, launch, currentDiscoveryEnv(), driver);
  return {
    command: resolved.command,
    args: resolved.args,
    found: resolved.discovered.found,
    driver: resolved.driver,
    ...(resolved.notice ? { notice: resolved.notice } : {}),
  };
}

/**
 * A second SIGINT or SIGTERM while stopping: stop at once, the process groups of the sessions that run inside
 * serve killed (those in session hosts go on).
 */
function stopAtOnce(live: LiveSessions, log: (line: string) => void) {
  return (signal: NodeJS.Signals) => {
    log(`${signal} again: stopping at once`);
    for (const session of live.all()) if (!session.host) signalGroup(session.driver.pid, 'SIGKILL');
    process.exit(1);
  };
}

interface Running {
  web: () => { close(): Promise<void> } | null;
  hostWatch: SessionHostWatch;
  daemon: Daemon;
  live: LiveSessions;
  cluster: ServeCluster | null;
  relayStore: Store;
  store: Store;
  daemonLog: { close(): void };
}

/**
 * Everything ends the same way, after a start-up failure or at Ctrl-C: sessions stopped (their prompts stay
 * pending in the store), channels and the web UI closed, the store last. The web UI and the sessions stop
 * together: no web client can hold the web UI up for long (it refuses new sessions at once and cuts its
 * sockets after a second), and a program that ignores SIGHUP and SIGTERM is killed after the terminal's grace.
 */
function closer(running: Running): () => Promise<void> {
  return async () => {
    await Promise.all([
      running.web()?.close(),
      (async () => {
        await running.hostWatch.stop();
        await running.daemon.stop();
        await releaseLive(running.live);
      })(),
    ]);
    // After the sessions: a node says how they ended before it leaves the cluster.
    await running.cluster?.close();
    running.relayStore.close();
    running.store.close();
    running.daemonLog.close();
  };
}

/** The daemon's channels once it started, or null when a SIGINT or SIGTERM came first (a slow channel). */
async function startUnlessStopped(
  daemon: Daemon,
  stopped: Promise<NodeJS.Signals>,
  log: (line: string) => void,
): Promise<string[] | null> {
  const first = await Promise.race([
    daemon.start().then((channels) => ({ channels })),
    stopped.then((signal) => ({ signal })),
  ]);
  if ('channels' in first) return first.channels;
  log(`${first.signal} while starting: stopping (send it again to stop at once)`);
  return null;
}

/** Until SIGINT or SIGTERM: SIGHUP reloads; an unexpected failure in one piece is said, and serving goes on. */
async function serveUntilStopped(
  onHangup: () => void,
  stopped: Promise<NodeJS.Signals>,
  log: (line: string) => void,
): Promise<void> {
  process.on('SIGHUP', onHangup);
  const onUnexpected = (error: unknown) =>
    log(`unexpected error (still serving): ${error instanceof Error ? error.message : String(error)}`);
  process.on('unhandledRejection', onUnexpected);
  const signal = await stopped;
  log(`${signal}: stopping (send it again to stop at once)`);
  process.off('SIGHUP', onHangup);
  // Late rejections during shutdown are still said, not thrown.
  setTimeout(() => process.off('unhandledRejection', onUnexpected), 10_000).unref();
}

/**
 * The first SIGINT or SIGTERM; any after it go to `again`. The listeners stay for the rest of the run: removing
 * them between two signals would drop a second one that is already on its way.
 */
function stopSignals(again: (signal: NodeJS.Signals) => void): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let received = 0;
    const onSignal = (signal: NodeJS.Signals) => (++received === 1 ? resolve(signal) : again(signal));
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

function webOptions(options: ServeOptions) {
  return {
    host: options.host,
    port: options.port,
    ...(options.tlsCert ? { tlsCert: options.tlsCert } : {}),
    ...(options.tlsKey ? { tlsKey: options.tlsKey } : {}),
    insecure: Boolean(options.insecureBind),
  };
}

function buildChannels(config: Config, withTerminal: boolean, log: (line: string) => void): DaemonChannel[] {
  const channels: DaemonChannel[] = [];
  for (const name of REMOTE_CHANNELS) {
    const remote = remoteChannel(name, config, systemClock, log);
    if (!remote) continue;
    channels.push({
      channel: remote.channel,
      allowedUsers: remote.allowedUsers,
      defaultChats: remote.chats,
      exclusive: true,
      threads: true,
      ...(remote.panelChat ? { panelChat: remote.panelChat } : {}),
    });
  }
  if (withTerminal) {
    const user = userName();
    const channel = new TerminalChannel({ input: process.stdin, output: process.stdout, user });
    channels.push({
      channel,
      allowedUsers: new Set([user]),
      defaultChats: [{ chatId: LOCAL_CHAT }],
      exclusive: false,
      // This terminal is the owner's: it sees every session this serve runs (repositories, threads, the ones
      // started from the web), and the ones that asked for the terminal.
      serves: (session) =>
        session.status === 'active' &&
        (session.ownerPid === process.pid || session.approveFrom.includes('terminal')),
    });
  }
  return channels;
}

/** Threads created in chat are written into the config file (keeping its comments), when there is one. */
function threadSaver(file: string | null): ((repo: string, entry: ThreadEntry) => void) | undefined {
  if (!file) return undefined;
  return (repo, entry) => writeConfigFile(file, appendThreadEntry(readFileSync(file, 'utf8'), repo, entry));
}

async function reload(
  daemon: Daemon,
  explicit: string | undefined,
  withTerminal: boolean,
  log: (line: string) => void,
  cluster: ServeCluster | null,
): Promise<void> {
  try {
    const { file, config } = loadConfig(findConfigFile(explicit, dataDir()));
    daemon.reload(
      await daemonSettings(config, process.cwd(), withTerminal, configBase(file), cluster),
      allowlists(config),
    );
    log(`reloaded ${file ?? 'the defaults'}: ${daemon.repoNames().join(', ')}`);
  } catch (error) {
    log(`reload failed, keeping the running configuration: ${(error as Error).message}`);
  }
}

/** The daemon's settings, as this machine's part in the cluster (if any) wants them. */
async function daemonSettings(
  config: Config,
  cwd: string,
  withTerminal: boolean,
  base: string,
  cluster: ServeCluster | null,
) {
  const settings = await configuredSettings(config, cwd, withTerminal, base);
  return cluster ? cluster.forRole(settings) : settings;
}

/** Relative paths in a config file are relative to its folder; without one, to the current folder. */
function configBase(file: string | null): string {
  return file ? path.dirname(path.resolve(file)) : process.cwd();
}

export type { Store };
