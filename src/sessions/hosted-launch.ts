import type { TerminalReadingOptions } from '../drivers/terminal/terminal-session.js';
import type { AsciicastHeader } from '../store/asciicast-writer.js';
import type { AgentSessionOptions, HostedOptions } from './agent-session-options.js';
import { hostPaths } from './host/host-files.js';
import type { HostedStart } from './host/hosted-terminal.js';

/** Claude Code's hooks for a hosted session: its settings file, and the secret its posts to the host carry. */
export interface HostedHooks {
  token: string;
  settingsFile: string;
}

/** What a session host is started with, for an agent session (AgentSession's `hosted` start). */
export function hostedLaunch(
  options: AgentSessionOptions,
  session: { id: string; label: string; hosted: HostedOptions; reading: TerminalReadingOptions },
  hooks: HostedHooks | null,
  recording: { file: string; header: AsciicastHeader } | null,
): HostedStart {
  const { spec, store, clock } = options;
  const hosted = session.hosted;
  const hookArgs = hooks && spec.hooks ? spec.hooks.args(hooks.settingsFile) : [];
  return {
    dataDir: store.dir,
    session: {
      id: session.id,
      agent: spec.id,
      label: session.label,
      cwd: options.cwd,
      command: options.command,
      recording: recording?.file ?? null,
      webInput: hosted.webInput,
      webView: hosted.webView,
      hooks: hooks !== null,
      startedAt: clock.now(),
    },
    args: [...hookArgs, ...options.args],
    env: {
      ...options.env,
      ...(hooks
        ? {
            AGENT_BRIDGE_HOOK_SOCKET: hostPaths(store.dir, session.id).socket,
            AGENT_BRIDGE_HOOK_TOKEN: hooks.token,
          }
        : {}),
    },
    cols: options.cols,
    rows: options.rows,
    recording: recording?.header ?? null,
    lines: hosted.lines ?? false,
    hookToken: hooks?.token ?? null,
    endWithController: hosted.endWithController ?? false,
    terminal: hosted.terminal ?? false,
    client: hosted.client,
    viewers: hosted.viewers ?? false,
    reading: session.reading,
    clock,
  };
}
