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
import { SpawnError } from '../../drivers/terminal/pty-process.js';
import { AgentSpawnError } from '../../drivers/structured/agent-process.js';
import { AgentStartError } from '../../drivers/structured/structured-driver.js';
import { AgentSession, type HostedOptions } from '../../sessions/agent-session.js';
import { discardPrewarmedHost } from '../../sessions/host/spawn-host.js';
import { firstPromptOf } from '../../sessions/first-prompt.js';
import { openStore, type Store } from '../../store/store.js';
import { promptTtls } from '../../config/prompt-ttls.js';
import type { Config } from '../../config/schema.js';
import type { ChannelRelay } from '../../sessions/channel-relay.js';
import { dataDir } from '../../store/paths.js';
import { REMOTE_CHANNELS } from '../remote-channels.js';
import { CliFailure, UsageError } from '../errors.js';
import { HostTerminal } from '../host-terminal.js';
import { reapDeadSessions } from '../../sessions/session-liveness.js';
import { endStatusOf } from '../../sessions/session-record-files.js';
import { DEFAULT_DETACH_KEY, describeDetachKey, parseDetachKey } from '../detach-key.js';
import { attachTerminal, detachedLine, type AttachmentEnd } from '../terminal-attachment.js';

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
  /**
   * true (`--detach`): start it with no terminal and return; false (`--no-detach`): the agent ends with this
   * process, however it ends; default: it goes on when this terminal closes or this process is killed.
   */
  detach?: boolean;
  /** `^X` or `none` (default `^\`). */
  detachKey?: string;
}

/** How often a session checks that the channels it asked for are still hosted by someone. */
const HOST_CHECK_MS = 5_000;
/** `run --detach` of an agent with no start-up question: how long it watches for a command that fails at once. */
const NOTHING_TO_ANSWER_MS = 1_000;

/** Channels that can answer prompts; the local ones (this terminal, `agent-bridge approvals`) always can. */
const LOCAL_CHANNELS = ['terminal', 'cli'];
const KNOWN_CHANNELS: string[] = [...LOCAL_CHANNELS, ...REMOTE_CHANNELS];

/** `agent-bridge run <agent>`: the agent in this terminal, transparently; returns the agent's exit code. */
export async function runCommand(agentName: string, args: string[], options: RunOptions): Promise<number> {
  const spec = lookupAgent(agentName);
  const remote = remoteChannels(options);
  const detachKey = parseDetachKey(options.detachKey ?? DEFAULT_DETACH_KEY);
  const config = await loadRunConfig(options.config, remote);
  const launchOptions: LaunchOptions = {
    skipPermissions: options.skipPermissions,
    resume: options.continue ? true : options.resume,
    extraArgs: args,
  };
  const launch = await resolveOrExplain(spec, launchOptions, options.driver ?? defaultDriver(spec));
  if (launch.notice) process.stderr.write(`agent-bridge: ${launch.notice}\n`);
  const structured = launch.driver === 'structured';
  if (structured) discardPrewarmedHost();
  if (structured && options.detach === true)
    throw new UsageError(
      '--detach: a session under the structured driver is a conversation in this terminal; use --driver terminal',
    );
  const host = new HostTerminal(process.stdin, process.stdout, { cols: options.cols, rows: options.rows });
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const { cols, rows } = host.size();
  const store = openStore();
  reapDeadSessions(store);
  // Claude's hooks post to the session's host, which relays them here: no receiver of our own.
  const hooks = options.hooks && spec.hooks && !structured ? true : undefined;
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
      ttlMs: { ...promptTtls(config), ...options.promptTtl },
      approveFrom: remote,
      // In raw mode a line needs its own carriage return; the agent's screen is redrawn by it soon after.
      onNotice: (line) => process.stderr.write(`\r\nagent-bridge: ${line}\r\n`),
      // A relay in this process sends a new prompt at once rather than at its next look at the store.
      observers: [
        { opened: () => relays.forEach((r) => r.poke()), closed: () => relays.forEach((r) => r.poke()) },
      ],
      ...(hooks ? { hooks } : {}),
      ...(structured ? { structured: protocolLaunch(launchOptions) } : { hosted: hostedAs(options) }),
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
    if (options.detach === true) return await runDetached(session, spec, options, detachKey);
    if (!options.quiet) process.stderr.write(startBanner(session, spec, cwd, remote, options, detachKey));
    return await relay(host, session, store, options, detachKey);
  } finally {
    await hosting?.stop();
    channelStore?.close();
    store.close();
  }
}

/** The remote channels asked for (checked: known ones only), and the web options checked together. */
function remoteChannels(options: RunOptions): string[] {
  const remote = (options.approveFrom ?? []).filter((channel) => !LOCAL_CHANNELS.includes(channel));
  if (options.webInput && options.webView === false)
    throw new UsageError('--web-input needs the web view: drop --no-web-view, or --web-input');
  for (const channel of remote) {
    if (!KNOWN_CHANNELS.includes(channel))
      throw new UsageError(
        `--approve-from ${channel}: unknown channel; choose from ${KNOWN_CHANNELS.join(', ')}`,
      );
  }
  return remote;
}

/** A terminal session runs in a session host of its own: what the web may do with it, and whether it outlives us. */
function hostedAs(options: RunOptions): HostedOptions {
  return {
    client: 'terminal',
    webInput: options.webInput ?? false,
    webView: options.webView !== false,
    endWithController: options.detach === false,
    // The agent's output goes from its host straight to this terminal (the host was started with it).
    terminal: options.detach !== true,
  };
}

/**
 * `run --detach`: the agent starts with no terminal; this process answers its start-up questions (folder
 * trust) until it is ready, then lets it go and says how to reach it.
 */
async function runDetached(
  session: AgentSession,
  spec: AgentSpec,
  options: RunOptions,
  detachKey: number | null,
): Promise<number> {
  // With no start-up question to answer (a custom command), there is nothing to wait for but a command that
  // fails at once: a quiet one (`sleep`, a server) would otherwise hold `run` until the ready timeout.
  await session.whenReady(spec.startupPrompts.length === 0 ? NOTHING_TO_ANSWER_MS : undefined);
  if (!session.driver.running) {
    const exit = await session.exited;
    await session.finish(exit, session.endStatus(exit));
    process.stderr.write(`agent-bridge: the agent ended as it started (${exitCodeOf(exit)})\n`);
    return exitCodeOf(exit);
  }
  session.detach('run --detach');
  if (!options.quiet) {
    const id = session.id.slice(0, 8);
    process.stderr.write(
      `agent-bridge: session ${id} runs detached: agent-bridge attach ${id}${detachKey === null ? '' : ` (${describeDetachKey(detachKey)} detaches)`}; its prompts: agent-bridge approvals\n`,
    );
  }
  process.stdout.write(`${session.id}\n`);
  return 0;
}

/** What was started and how to reach it from elsewhere, said once before the agent's screen takes over. */
function startBanner(
  session: AgentSession,
  spec: AgentSpec,
  cwd: string,
  remote: string[],
  options: RunOptions,
  detachKey: number | null,
): string {
  const home = process.env.HOME;
  const tidy = (file: string) =>
    home && file.startsWith(home + path.sep) ? '~' + file.slice(home.length) : file;
  const recording = session.recording ? ` · recording ${tidy(session.recording)}` : ' · not recorded';
  const web = options.webView === false ? null : options.webInput ? 'watch and type' : 'watch';
  const elsewhere = [
    'agent-bridge approvals --watch (another terminal)',
    web ? `agent-bridge serve (browser: ${web})` : 'agent-bridge serve (browser: prompts only)',
    ...(remote.length > 0 ? [`${remote.join(', ')} (chat)`] : ['--approve-from telegram|discord (chat)']),
  ];
  const id = session.id.slice(0, 8);
  const key = detachKey === null ? 'no detach key' : `${describeDetachKey(detachKey)} detaches`;
  const goesOn =
    options.detach === false
      ? 'it ends with this terminal (--no-detach)'
      : `${key}; if this terminal closes it goes on: agent-bridge attach ${id}`;
  return (
    `agent-bridge: ${spec.id} in ${tidy(cwd)} · session ${id}${recording}\n` +
    `agent-bridge: answer its prompts here or from ${elsewhere.join(', ')}; --quiet hides this\n` +
    `agent-bridge: ${goesOn}\n`
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
  // A --config that is not there is said (findConfigFile), whether or not anything needs the file.
  if (!explicit && channels.length === 0 && !candidates.some((file) => file && existsSync(file))) return null;
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
    if (!launch.discovered.found) throw new UsageError(notFound(spec, launch.command));
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

/** Why the agent cannot start: its command is not there (the one given after --, or the agent's own). */
function notFound(spec: AgentSpec, command: string): string {
  if (spec.commandFromArgs) {
    const what = spec.id === 'acp' ? `ACP agent command "${command}"` : `command "${command}"`;
    return command.includes('/')
      ? `${what} does not exist or is not executable`
      : `${what} is not found on PATH (or is not executable)`;
  }
  return `${spec.displayName} (${spec.id}) is not installed or not executable; install it with: ${spec.installHint}`;
}

/**
 * This terminal attached to the session until the agent exits (its exit code becomes ours), a SIGTERM stops
 * it (128 + 15), or the terminal lets it go: the detach key, the terminal closing, an internal error; then the
 * session goes on in its host and this process says how to attach again.
 */
async function relay(
  host: HostTerminal,
  agent: AgentSession,
  store: Store,
  options: RunOptions,
  detachKey: number | null,
): Promise<number> {
  const terminal = agent.terminal!;
  const firstPrompt = firstPromptOf(agent, store);
  const end: AttachmentEnd = await attachTerminal(host, terminal, {
    detachKey,
    stopOnHangup: options.detach === false,
    typed: (keys) => firstPrompt.typed(keys),
    stop: () => void agent.stop(),
  });
  if (end.how === 'detached') {
    // An answer being typed goes out first: the session is let go after it.
    await agent.letGo(
      end.why === 'key' ? 'detach key' : end.why === 'hangup' ? 'its terminal closed' : 'internal error',
    );
    if (end.why !== 'hangup') process.stderr.write(detachedLine(agent.id, detachKey));
    return end.why === 'crash' ? 1 : 0;
  }
  const exit = end.how === 'exited' ? end.exit : await agent.exited;
  const stopped = end.how === 'stopped' ? end.signal : agent.host?.report?.stopped?.signal;
  await agent.finish(exit, endStatusOf(exit, Boolean(stopped)));
  return stopped ? 128 + (osConstants.signals[stopped as NodeJS.Signals] ?? 1) : exitCodeOf(exit);
}

export function exitCodeOf(exit: ExitInfo): number {
  if (exit.exitCode !== null) return exit.exitCode;
  const number = exit.signal ? osConstants.signals[exit.signal as NodeJS.Signals] : undefined;
  return 128 + (number ?? 1);
}
