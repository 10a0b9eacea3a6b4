import { homedir } from 'node:os';
import path from 'node:path';
import type { DaemonRepo } from '../sessions/daemon/daemon-types.js';

export interface ServeBannerInput {
  repos: DaemonRepo[];
  /** Channels this serve hosts (the web UI included when on). */
  hosted: string[];
  /** The web UI's address with its token, when it is served. */
  webUrl: string | null;
  /** The config file, or null for the embedded default (this folder, this terminal, the web UI). */
  file: string | null;
  terminal: boolean;
}

/**
 * What `serve` says when it is up, on stderr: which repositories run which agents where, reached from which
 * chats; where the web UI is; and what to type. The first line keeps its old shape for scripts that wait on it.
 */
export function serveBanner(input: ServeBannerInput): string {
  const { repos, hosted, webUrl, file, terminal } = input;
  const on = hosted.join(', ') || 'no channel (hosted elsewhere)';
  const lines: string[] = [];
  if (file) {
    lines.push(
      `agent-bridge serve: ${repos.map((r) => r.name).join(', ')} on ${on} (${file}); Ctrl-C to stop`,
    );
    for (const repo of repos)
      lines.push(`  ${repo.name}: ${repo.agent.id} in ${tidy(repo.dir)}${chatsOf(repo)}`);
  } else {
    const repo = repos[0]!;
    lines.push(
      `agent-bridge serve: ${repo.agent.id} in this folder, ${tidy(repo.dir)}, on ${on}; Ctrl-C to stop ` +
        `(no agent-bridge.yaml: agent-bridge add-repo maps repositories to chats)`,
    );
  }
  if (webUrl) lines.push(`agent-bridge serve: open ${webUrl}`);
  const first = file ? repos[0]?.name : repos[0]?.agent.id;
  if (terminal && first)
    lines.push(
      `agent-bridge serve: type a message for ${first} here${repos.length > 1 ? ' (/select <repo> to talk to another)' : ''}; /help lists the commands`,
    );
  return lines.join('\n') + '\n';
}

function chatsOf(repo: DaemonRepo): string {
  const chats = Object.entries(repo.chats)
    .filter(([channel]) => channel !== 'terminal' && channel !== 'web')
    .map(([channel, ids]) => `${channel} ${ids.join(', ')}`);
  return chats.length > 0 ? `, from ${chats.join('; ')}` : '';
}

function tidy(dir: string): string {
  const home = homedir();
  return dir === home || dir.startsWith(home + path.sep) ? '~' + dir.slice(home.length) : dir;
}
