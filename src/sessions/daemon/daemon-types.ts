import type { Channel, ChatTarget } from '../../channels/contract.js';
import type { PromptTtls } from '../../config/prompt-ttls.js';
import type { RepoConfig } from '../../config/schema.js';
import type { RateLimits } from '../../core/rate-limit.js';
import type { SessionRecord } from '../../store/session-store.js';
import type { RepoDefinition } from './repo-session.js';

export interface DaemonRepo extends RepoDefinition {
  /** Chats per channel that talk to this repository, e.g. { telegram: ['123'] }. */
  chats: Record<string, string[]>;
  /** The repository's config entry (thread settings merge from it); absent for the implicit repository. */
  config?: RepoConfig;
  /** The folder relative paths in the config are relative to (default: the repository's). */
  baseDir?: string;
  /** Start the agent when the daemon starts. */
  startup?: boolean;
}

export interface DaemonSettings {
  repos: DaemonRepo[];
  idleTimeoutMs: number;
  outputThreshold: number;
  resume: boolean;
  rateLimits: Partial<RateLimits> | null;
  /** How long each kind of prompt waits (`defaults.prompt_ttl`); kinds left out keep their default. */
  promptTtlMs?: PromptTtls;
}

export interface DaemonChannel {
  channel: Channel;
  allowedUsers: Set<string>;
  /** Where prompts of sessions from outside the daemon go (`run --approve-from`). */
  defaultChats: ChatTarget[];
  /** Bot channels take a lease (one poller per token); a terminal does not. */
  exclusive: boolean;
  /** Threads under mapped chats run sessions of their own (Discord threads, Telegram forum topics). */
  threads?: boolean;
  /** Where the control panel lives (one status message per project, Start / Stop). */
  panelChat?: ChatTarget;
  /** Which sessions it serves; default: those that asked for it (repositories mapped to it, `--approve-from`). */
  serves?: (session: SessionRecord) => boolean;
}
