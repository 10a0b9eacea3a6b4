import type { ScreenVocabulary } from '../core/screen-vocabulary.js';
import type { StartupPromptRule } from '../core/startup-rules.js';

export const AGENT_IDS = [
  'claude',
  'codex',
  'gemini',
  'copilot',
  'cursor-agent',
  'aider',
  'shell',
  'custom',
] as const;
export type AgentId = (typeof AGENT_IDS)[number];

/** Where to look for an agent's executable, in order (seed 003). `{HOME}` is the user's home folder. */
export interface CommandSearch {
  /** Tool-specific install locations, checked before PATH, e.g. `{HOME}/.claude/local/claude`. */
  homePaths: string[];
  /** Names looked up on PATH: the main name first, then alternatives such as `claude-code`. */
  names: string[];
  /** Environment variable that overrides discovery with an explicit path. */
  overrideEnv?: string;
}

export interface LaunchOptions {
  /** Run without asking for permissions (each agent's own flag). */
  skipPermissions?: boolean;
  /** Resume a conversation: an id, or `true` for the most recent one. */
  resume?: string | true;
  /** Arguments the user passed after `--`. */
  extraArgs?: string[];
  /** A model of the agent's own naming (`--model`). */
  model?: string;
  /** A permission mode other than bypass (Claude Code's `acceptEdits`, `plan`, `default`). */
  permissionMode?: string;
}

export interface AgentSpec {
  id: AgentId;
  displayName: string;
  /** One line for `agent-bridge agents` and tool cards. */
  description: string;
  /** How to install it, shown when it is missing. */
  installHint: string;
  search: CommandSearch;
  /** The flag that skips permission prompts, if the agent has one. */
  skipPermissionsFlag?: string;
  /** The flag that chooses a model, if the agent has one. */
  modelFlag?: string;
  /** Arguments for a permission mode (other than skipping them all), if the agent has modes. */
  permissionModeArgs?: (mode: string) => string[];
  /** Arguments that resume a conversation, if the agent can. */
  resumeArgs?: (resume: string | true) => string[];
  /** The resume arguments are a subcommand (`codex resume --last`), so they go first. */
  resumeIsSubcommand?: boolean;
  /** Arguments always passed (e.g. Codex's `--no-daemon`, which otherwise leaves a server behind). */
  baseArgs?: string[];
  /** Questions asked before the agent can work, accepted automatically when auto-trust is on. */
  startupPrompts: StartupPromptRule[];
  /** How the agent asks on screen, and how its menus take keys (terminal driver). */
  screens: ScreenVocabulary;
  /** Structured signals from the agent's own hooks, when it has them (Claude Code: `--settings <file>`). */
  hooks?: { protocol: 'claude-code'; args: (settingsFile: string) => string[] };
  /** Drivers this agent can run under. */
  drivers: Array<'terminal' | 'structured'>;
}

export function buildLaunchArgs(spec: AgentSpec, options: LaunchOptions): string[] {
  const resume = resumeArgsFor(spec, options.resume);
  const args = spec.resumeIsSubcommand ? [...resume] : [];
  args.push(...(spec.baseArgs ?? []));
  if (options.skipPermissions) {
    if (!spec.skipPermissionsFlag)
      throw new UnsupportedLaunchOption(`${spec.id} has no skip-permissions flag`);
    args.push(spec.skipPermissionsFlag);
  }
  if (options.model !== undefined) {
    if (!spec.modelFlag) throw new UnsupportedLaunchOption(`${spec.id} has no model option`);
    args.push(spec.modelFlag, options.model);
  }
  if (options.permissionMode !== undefined && options.permissionMode !== 'default') {
    if (!spec.permissionModeArgs) throw new UnsupportedLaunchOption(`${spec.id} has no permission modes`);
    args.push(...spec.permissionModeArgs(options.permissionMode));
  }
  if (!spec.resumeIsSubcommand) args.push(...resume);
  args.push(...(options.extraArgs ?? []));
  return args;
}

function resumeArgsFor(spec: AgentSpec, resume: string | true | undefined): string[] {
  if (resume === undefined) return [];
  if (!spec.resumeArgs) throw new UnsupportedLaunchOption(`${spec.id} cannot resume a conversation`);
  return spec.resumeArgs(resume);
}

/** A launch option the agent does not support: a usage error, not a crash. */
export class UnsupportedLaunchOption extends Error {
  override name = 'UnsupportedLaunchOption';
}
