import type { AgentSpec } from '../agents/types.js';
import type { Clock } from '../core/clock.js';
import type { PromptKind } from '../core/events.js';
import type { StructuredLaunch } from '../drivers/structured/structured-driver.js';
import type { SessionRecord } from '../store/session-store.js';
import type { Store } from '../store/store.js';
import type { HostConnection } from './host/host-connection.js';
import type { ClientKind } from './host/host-wire.js';
import type { HostView } from './host/remote-port.js';
import type { PromptObserver } from './prompt-coordinator.js';

/** How an agent session is started (AgentSession.start) or taken over (AgentSession.takeOver). */

export interface AgentSessionOptions {
  spec: AgentSpec;
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  cols: number;
  rows: number;
  autoTrust: boolean;
  record: boolean;
  store: Store;
  clock: Clock;
  /**
   * Claude Code's hooks, wanted, for a hosted session: they post to its session host, which relays them to
   * the controller. Without it, and for a terminal in this process's PTY, prompts are read off the screen.
   */
  hooks?: true;
  /**
   * Its terminal in a session host of its own, so the agent outlives this process (terminal driver only); by
   * default the PTY is this process's.
   */
  hosted?: HostedOptions;
  /**
   * Run the agent through its own protocol (the spec's structured facet) instead of its screen: the launch
   * options its protocol carries (resume, model, skipping permissions). `args` are then its protocol-mode ones.
   */
  structured?: Pick<StructuredLaunch, 'resume' | 'model' | 'skipPermissions'>;
  ttlMs?: Partial<Record<PromptKind, number>>;
  observers?: PromptObserver[];
  /** Remote channels that may answer prompts and talk to the session (the local ones always can). */
  approveFrom?: string[];
  /** A name for people: the repository name; default the folder's name. */
  label?: string;
  /** Who started it, for the audit trail (e.g. `web:127.0.0.1`); absent for a session started at its own terminal. */
  startedBy?: string;
  /**
   * Something the person running it should know at once (the store failed: a full disk). `run` prints it in
   * the terminal, `serve` in its log. It is audited too, when the audit log can still be written.
   */
  onNotice?: (line: string) => void;
}

export interface HostedOptions {
  /** Who starts it: a person's terminal (`run`), or serve. */
  client: ClientKind;
  /** The web may type into it, and see it. */
  webInput: boolean;
  webView: boolean;
  /** `run --no-detach`: the agent ends with this process. */
  endWithController?: boolean;
  /** The web UI's browsers get the terminal from its host itself, handed over by this process (serve). */
  viewers?: boolean;
  /** Its finished lines are numbered and kept by the host for the chats (onLines). */
  lines?: boolean;
  /**
   * The host writes the agent's output to this process's terminal (its stdout), which `run` lets flow once
   * it shows the session (TerminalPort.terminalOutput); the output does not cross this process.
   */
  terminal?: boolean;
}

/** A session another process started, taken over (its session host outlived that process). */
export interface TakeOverOptions extends Pick<
  AgentSessionOptions,
  'store' | 'clock' | 'ttlMs' | 'observers' | 'onNotice' | 'autoTrust'
> {
  spec: AgentSpec;
  record: SessionRecord;
  connection: HostConnection;
  /** The screen the host showed (the welcome's, or the one it gave with control). */
  view: HostView;
  /** It has hooks (Claude Code's, relayed by its host). */
  hooks: boolean;
}

/** Sessions that run in the background (the daemon, the web UI): nobody's terminal gives them a size. */
export const BACKGROUND_SESSION = {
  env: process.env,
  cols: 120,
  rows: 40,
  autoTrust: true,
  record: true,
} as const;

/** Serve's own sessions: in session hosts, so a restart of serve loses none; the web may see and type. */
export const SERVE_HOSTED: HostedOptions = { client: 'serve', webInput: true, webView: true, viewers: true };

/** The options a taken-over session runs with: its record's, nothing launched (its host has the agent). */
export function takeOverSessionOptions(options: TakeOverOptions): AgentSessionOptions {
  const { record, spec } = options;
  return {
    spec,
    command: '',
    args: [],
    cwd: record.cwd,
    env: {},
    cols: options.view.cols,
    rows: options.view.rows,
    autoTrust: options.autoTrust,
    record: false,
    store: options.store,
    clock: options.clock,
    approveFrom: record.approveFrom,
    label: record.label,
    ...(options.hooks ? { hooks: true as const } : {}),
    ...(options.ttlMs ? { ttlMs: options.ttlMs } : {}),
    ...(options.observers ? { observers: options.observers } : {}),
    ...(options.onNotice ? { onNotice: options.onNotice } : {}),
  };
}
