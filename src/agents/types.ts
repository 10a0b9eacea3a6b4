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
  'acp',
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
  /** Its own protocol, when it speaks one: what the structured driver runs it with. */
  structured?: StructuredFacet;
  /** False for an agent that only speaks a protocol (no screen to read). Default true. */
  terminal?: false;
  /** The command comes from the arguments after `--` (custom, acp), not from discovery. */
  commandFromArgs?: boolean;
}

/** How agent-bridge talks to an agent: its screen, its own protocol, or the protocol where the agent has one. */
export const DRIVER_CHOICES = ['auto', 'terminal', 'structured'] as const;
export type DriverChoice = (typeof DRIVER_CHOICES)[number];
export type DriverKind = Exclude<DriverChoice, 'auto'>;

/** The protocols agent-bridge speaks: one structured driver each. */
export type StructuredProtocol = 'acp' | 'claude-stream-json' | 'codex-app-server';

export interface StructuredFacet {
  protocol: StructuredProtocol;
  /** What puts the agent in protocol mode: flags (`--acp`), or a subcommand (`app-server`), see `subcommand`. */
  modeArgs: string[];
  /** `modeArgs` is a subcommand: it goes first, and the terminal's base arguments are left out. */
  subcommand?: boolean;
  /**
   * Launch options that stay command-line flags in protocol mode; the others go through the protocol
   * (ACP `session/load` resumes, Codex takes its model and approval policy in `thread/start`).
   */
  flags: ReadonlyArray<'model' | 'skipPermissions' | 'permissionMode' | 'resume'>;
  /** The installed version speaks it when its `--help` (with these arguments) matches; older ones did not. */
  probe?: { args: string[]; pattern: RegExp };
}

/**
 * Why `choice` cannot run `spec` (with what to use instead), or null when it can. `auto` always can: it picks
 * the agent's protocol where it has one and the installed version speaks it.
 */
export function driverProblem(spec: AgentSpec, choice: string): string | null {
  if (!(DRIVER_CHOICES as readonly string[]).includes(choice))
    return `unknown driver "${choice}": choose ${DRIVER_CHOICES.join(', ')}`;
  if (choice === 'auto' || agentDrivers(spec).includes(choice as DriverKind)) return null;
  return choice === 'structured'
    ? `${spec.id} has no structured driver (it is read from its screen): use driver terminal or auto`
    : `${spec.id} speaks only its protocol: use driver structured or auto`;
}

/** The driver when none is chosen: the agent's screen, or its protocol for an agent that has no screen (acp). */
export function defaultDriver(spec: AgentSpec): DriverKind {
  return spec.terminal === false ? 'structured' : 'terminal';
}

/** The drivers an agent can run under. */
export function agentDrivers(spec: AgentSpec): DriverKind[] {
  return [
    ...(spec.terminal === false ? [] : ['terminal' as const]),
    ...(spec.structured ? ['structured' as const] : []),
  ];
}

/**
 * The command line of the agent in protocol mode: its mode arguments, the launch options that stay flags
 * there, then the user's own arguments. Options the protocol carries itself are left to the driver.
 */
export function buildStructuredArgs(spec: AgentSpec, options: LaunchOptions): string[] {
  const facet = spec.structured;
  if (!facet) throw new UnsupportedLaunchOption(`${spec.id} has no structured driver`);
  const flags = new Set(facet.flags);
  const asFlags: LaunchOptions = {
    ...(flags.has('skipPermissions') ? { skipPermissions: options.skipPermissions } : {}),
    ...(flags.has('model') && options.model !== undefined ? { model: options.model } : {}),
    ...(flags.has('permissionMode') && options.permissionMode !== undefined
      ? { permissionMode: options.permissionMode }
      : {}),
    ...(flags.has('resume') && options.resume !== undefined ? { resume: options.resume } : {}),
    extraArgs: options.extraArgs ?? [],
  };
  if (options.resume === true && !flags.has('resume'))
    throw new UnsupportedLaunchOption(
      `${spec.id} resumes a conversation by its id under the structured driver: give --resume <id>`,
    );
  const withoutBase: AgentSpec = { ...spec, baseArgs: facet.subcommand ? [] : (spec.baseArgs ?? []) };
  const rest = buildLaunchArgs(withoutBase, asFlags);
  return [...facet.modeArgs, ...rest];
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
