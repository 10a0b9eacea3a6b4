import { constants as osConstants } from 'node:os';
import path from 'node:path';
import { currentDiscoveryEnv } from '../../agents/discovery.js';
import { DriverUnavailable, resolveDriverLaunch } from '../../agents/driver-choice.js';
import { getAgent, UnknownAgentError, MissingCustomCommandError } from '../../agents/registry.js';
import {
  UnsupportedLaunchOption,
  defaultDriver,
  type AgentSpec,
  type DriverChoice,
  type LaunchOptions,
} from '../../agents/types.js';
import type { ExitInfo } from '../../core/events.js';
import { systemClock, type TimerHandle } from '../../core/clock.js';
import type { PromptKind } from '../../core/events.js';
import { HookReceiver } from '../../drivers/hooks/hook-receiver.js';
import { SpawnError } from '../../drivers/terminal/pty-process.js';
import { AgentSpawnError } from '../../drivers/structured/agent-process.js';
import { AgentStartError } from '../../drivers/structured/structured-driver.js';
import { AgentSession } from '../../sessions/agent-session.js';
import { firstPromptOf } from '../../sessions/first-prompt.js';
import { shareTerminal, type TerminalShare } from '../../sessions/share/terminal-share.js';
import { openStore, type Store } from '../../store/store.js';
import { durationMs } from '../../config/duration.js';
import type { Config } from '../../config/schema.js';
import type { ChannelRelay } from '../../sessions/channel-relay.js';
import { dataDir } from '../../store/paths.js';
import { REMOTE_CHANNELS } from '../remote-channels.js';
import { CliFailure, UsageError } from '../errors.js';
import { HostTerminal } from '../host-terminal.js';
import { reapDeadSessions } from '../../sessions/session-liveness.js';

export interface RunOptions {
  cwd?: string;
  skipPermissions?: boolean;
  resume?: string | true;
  continue?: boolean;
  autoTrust: boolean;
  record: boolean;
  hooks: boolean;
  /** agent-bridge.yaml to read channel settings from. */
  config?: string;
  approveFrom?: string[];
  /** Milliseconds per prompt kind. */
  promptTtl?: Partial<Record<PromptKind, number>>;
  cols: number;
  rows: number;
  /** Do not say on stderr what was started. */
  quiet?: boolean;
  /** terminal (default): the agent's own screen; structured: its protocol; auto: the protocol where it can. */
  driver?: DriverChoice;
  /** Share the screen with the web UI (`serve`) to watch (default on). */
  webView: boolean;
  /** Let the web UI type into the session too. */
  webInput?: boolean;
}

/** How often a session checks that the channels it asked for are still hosted by someone. */
const HOST_CHECK_MS = 5_000;

/** Channels that can answer prompts; the local ones (this terminal, `agent-bridge approvals`) always can. */
const LOCAL_CHANNELS = ['terminal', 'cli'];
const KNOWN_CHANNELS: string[] = [...LOCAL_CHANNELS, ...REMOTE_CHANNELS];

/** `agent-bridge run <agent>`: the agent in this terminal, transparently; returns the agent's exit code. */
export async function runCommand(agentName: string, args: string[], options: RunOptions): Promise<number> {
  const spec = lookupAgent(agentName);
  const remote = (options.approveFrom ?? []).filter((channel) => !LOCAL_CHANNELS.includes(channel));
  if (options.webInput && options.webView === false)
    throw new UsageError('--web-input needs the web view: drop --no-web-view, or --web-input');
  for (const channel of remote) {
    if (!KNOWN_CHANNELS.includes(channel))
      throw new UsageError(
        `--approve-from ${channel}: unknown channel; choose from ${KNOWN_CHANNELS.join(', ')}`,
      );
  }
  const config = await loadRunConfig(options.config, remote);
  const launchOptions: LaunchOptions = {
    skipPermissions: options.skipPermissions,
    resume: options.continue ? true : options.resume,
    extraArgs: args,
  };
  const launch = await resolveOrExplain(spec, launchOptions, options.driver ?? defaultDriver(spec));
  if (launch.notice) process.stderr.write(`agent-bridge: ${launch.notice}\n`);
  const structured = launch.driver === 'structured';
  const host = new HostTerminal(process.stdin, process.stdout, { cols: options.cols, rows: options.rows });
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const { cols, rows } = host.size();
  const store = openStore();
  reapDeadSessions(store);
  const hooks = options.hooks && spec.hooks && !structured ? await startHookReceiver(store) : undefined;
  // Channels get their own connection: SQLite tells a connection about others' commits, not its own.
  const channelStore = remote.length > 0 ? openStore() : null;
  let agent: AgentSession | null = null;
  const hosting =
    config && channelStore ? await hostRemoteChannels(remote, config, channelStore, () => agent) : null;
  const relays = hosting?.relays ?? [];
  try {
    const session = await AgentSession.start({
      spec,
      command: launch.command,
      args: launch.args,
      cwd,
      env: process.env,
      cols,
      rows,
      autoTrust: options.autoTrust,
      record: options.record,
      store,
      clock: systemClock,
      ttlMs: { ...configuredTtls(config), ...options.promptTtl },
      approveFrom: remote,
      // In raw mode a line needs its own carriage return; the agent's screen is redrawn by it soon after.
      onNotice: (line) => process.stderr.write(`\r\nagent-bridge: ${line}\r\n`),
      // A relay in this process sends a new prompt at once rather than at its next look at the store.
      observers: [
        { opened: () => relays.forEach((r) => r.poke()), closed: () => relays.forEach((r) => r.poke()) },
      ],
      ...(hooks ? { hooks } : {}),
      ...(structured ? { structured: protocolLaunch(launchOptions) } : {}),
    }).catch((error: unknown) => {
      if (error instanceof SpawnError || error instanceof AgentSpawnError)
        throw new UsageError(error.message);
      if (error instanceof AgentStartError) throw new CliFailure(error.message);
      throw error;
    });
    agent = session;
    if (structured) {
      const { converse } = await import('./run-structured.js');
      return await converse(session, config?.defaults.output_threshold ?? 1500);
    }
    if (!options.quiet) process.stderr.write(startBanner(session, spec, cwd, remote, options));
    return await relay(host, session, store, options);
  } finally {
    await hosting?.stop();
    channelStore?.close();
    await hooks?.close();
    store.close();
  }
}

/** What was started and how to reach it from elsewhere, said once before the agent's screen takes over. */
function startBanner(
  session: AgentSession,
  spec: AgentSpec,
  cwd: string,
  remote: string[],
  options: RunOptions,
): string {
  const home = process.env.HOME;
  const tidy = (file: string) =>
    home && file.startsWith(home + path.sep) ? '~' + file.slice(home.length) : file;
  const recording = session.recorder ? ` · recording ${tidy(session.recorder.file)}` : ' · not recorded';
  const web = options.webView === false ? null : options.webInput ? 'watch and type' : 'watch';
  const elsewhere = [
    'agent-bridge approvals --watch (another terminal)',
    web ? `agent-bridge serve (browser: ${web})` : 'agent-bridge serve (browser: prompts only)',
    ...(remote.length > 0 ? [`${remote.join(', ')} (chat)`] : ['--approve-from telegram|discord (chat)']),
  ];
  return (
    `agent-bridge: ${spec.id} in ${tidy(cwd)} · session ${session.id.slice(0, 8)}${recording}\n` +
    `agent-bridge: answer its prompts here or from ${elsewhere.join(', ')}; --quiet hides this\n`
  );
}

/**
 * The config file, when there is one (prompt TTLs, and the channels named by --approve-from, which must be in
 * it). Loaded only then: plain runs start without the config code.
 */
async function loadRunConfig(explicit: string | undefined, channels: string[]): Promise<Config | null> {
  const { existsSync } = await import('node:fs');
  const candidates = [
    explicit,
    path.join(process.cwd(), 'agent-bridge.yaml'),
    path.join(dataDir(), 'agent-bridge.yaml'),
  ];
  if (channels.length === 0 && !candidates.some((file) => file && existsSync(file))) return null;
  const { findConfigFile, loadConfig } = await import('../../config/load.js');
  const file = findConfigFile(explicit, dataDir());
  const { config } = loadConfig(file);
  for (const channel of channels) {
    if (!(config.channels as Record<string, unknown>)[channel]) {
      throw new UsageError(
        `${channel} is not configured${file ? ` in ${file}` : ''}: run agent-bridge setup ${channel}`,
      );
    }
  }
  return config;
}

function configuredTtls(config: Config | null): Partial<Record<PromptKind, number>> {
  const ttls: Partial<Record<PromptKind, number>> = {};
  for (const [kind, value] of Object.entries(config?.defaults.prompt_ttl ?? {})) {
    if (value !== undefined) ttls[kind as PromptKind] = durationMs(value);
  }
  return ttls;
}

/**
 * Hosts the channels the session asked for unless another agent-bridge does; checks again every few seconds,
 * so when that process ends, this one takes the channel over and prompts still reach it.
 */
async function hostRemoteChannels(
  remote: string[],
  config: Config,
  store: Store,
  agent: () => AgentSession | null,
) {
  const { hostChannels } = await import('../channel-hosting.js');
  const relays: ChannelRelay[] = [];
  const options = {
    config,
    store,
    clock: systemClock,
    log: () => undefined,
    onAnswer: () => agent()?.poke(),
  };
  const host = async () => {
    const missing = remote.filter((name) => !relays.some((relay) => relay.name === name));
    if (missing.length > 0) relays.push(...(await hostChannels(missing, options)));
  };
  await host();
  let timer: TimerHandle | null = null;
  const watch = () => {
    timer = systemClock.after(
      HOST_CHECK_MS,
      () =>
        void host()
          .catch(() => undefined)
          .finally(watch),
    );
  };
  watch();
  return {
    relays,
    stop: async () => {
      timer?.cancel();
      await Promise.all(relays.map((relay) => relay.stop().catch(() => undefined)));
    },
  };
}

function startHookReceiver(store: Store): Promise<HookReceiver> {
  return HookReceiver.start((attempt) => store.audit.record('UNAUTHORIZED', { source: 'hook', ...attempt }));
}

function lookupAgent(name: string): AgentSpec {
  try {
    return getAgent(name);
  } catch (error) {
    if (error instanceof UnknownAgentError) throw new UsageError(error.message);
    throw error;
  }
}

/** The launch options a structured driver carries in its protocol rather than as flags. */
function protocolLaunch(options: LaunchOptions) {
  return {
    ...(typeof options.resume === 'string' ? { resume: options.resume } : {}),
    ...(options.skipPermissions ? { skipPermissions: true } : {}),
  };
}

async function resolveOrExplain(spec: AgentSpec, options: LaunchOptions, driver: DriverChoice) {
  try {
    const launch = await resolveDriverLaunch(spec, options, currentDiscoveryEnv(), driver);
    if (!launch.discovered.found) {
      const what = spec.id === 'custom' ? `command "${launch.command}"` : `${spec.displayName} (${spec.id})`;
      throw new UsageError(
        `${what} is not installed or not executable; install it with: ${spec.installHint}`,
      );
    }
    return launch;
  } catch (error) {
    if (
      error instanceof UnsupportedLaunchOption ||
      error instanceof MissingCustomCommandError ||
      error instanceof DriverUnavailable
    ) {
      throw new UsageError(error.message);
    }
    throw error;
  }
}

/** Pumps bytes both ways until the agent exits, then restores the terminal on every path. */
async function relay(
  host: HostTerminal,
  agent: AgentSession,
  store: Store,
  options: RunOptions,
): Promise<number> {
  const out = host.output;
  const session = agent.terminal!;
  let stoppedBySignal: NodeJS.Signals | null = null;
  const stopAs = (signal: NodeJS.Signals) => {
    stoppedBySignal = signal;
    void session.stop();
  };
  const share =
    options.webView === false ? null : await startShare(agent, store, options, () => stopAs('SIGTERM'));
  session.on((event) => {
    if (event.type !== 'output') return;
    // Backpressure: a slow terminal pauses the agent instead of growing memory.
    if (!out.write(event.data)) {
      session.pty.pause();
      out.once('drain', () => session.pty.resume());
    }
  });
  const firstPrompt = firstPromptOf(agent, store);
  const onInput = (chunk: Buffer) => {
    session.userInput(chunk);
    firstPrompt.typed(chunk);
  };
  host.input.on('data', onInput);
  host.enterRawMode();
  host.input.resume();
  const stopResize = host.onResize(({ cols, rows }) => {
    agent.resize(cols, rows);
    share?.resized(cols, rows);
  });
  // Leave the user's prompt on a fresh line even when the agent died mid-line.
  const restore = () => {
    const { cursor } = session.screen.snapshot();
    host.restore(session.screen.resetSequence() + (cursor.x > 0 ? '\r\n' : ''));
  };
  const onSignal = (signal: NodeJS.Signals) => {
    // Without a tty, Ctrl-C reaches us as SIGINT: pass it to the agent, as the terminal would.
    if (signal === 'SIGINT' && !host.interactive) return session.interrupt();
    stopAs(signal);
  };
  const onCrash = (error: unknown) => {
    restore();
    session.pty.interrupt('SIGKILL');
    process.stderr.write(
      `agent-bridge: internal error: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  };
  const signals: NodeJS.Signals[] = ['SIGTERM', 'SIGHUP', 'SIGINT'];
  for (const signal of signals) process.on(signal, onSignal);
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  try {
    const exit = await session.exited;
    await session.screen.catchUp();
    await agent.finish(exit, stoppedBySignal ? 'terminated' : exit.signal ? 'crashed' : 'completed');
    await drain(out);
    return stoppedBySignal ? 128 + (osConstants.signals[stoppedBySignal] ?? 1) : exitCodeOf(exit);
  } finally {
    await share?.close();
    stopResize();
    host.input.off('data', onInput);
    for (const signal of signals) process.off(signal, onSignal);
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
    restore();
  }
}

/**
 * The session's screen, shared with the web UI on a unix socket (watch; type with --web-input). Without it the
 * session still runs: the reason is said once, and the web UI answers its prompts only.
 */
async function startShare(
  agent: AgentSession,
  store: Store,
  options: RunOptions,
  onStop: () => void,
): Promise<TerminalShare | null> {
  try {
    return await shareTerminal({ session: agent, store, webInput: options.webInput ?? false, onStop });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(`\r\nagent-bridge: the web UI cannot show this session: ${reason}\r\n`);
    return null;
  }
}

export function exitCodeOf(exit: ExitInfo): number {
  if (exit.exitCode !== null) return exit.exitCode;
  const number = exit.signal ? osConstants.signals[exit.signal as NodeJS.Signals] : undefined;
  return 128 + (number ?? 1);
}

function drain(out: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (!out.writableNeedDrain) resolve();
    else out.once('drain', () => resolve());
  });
}
