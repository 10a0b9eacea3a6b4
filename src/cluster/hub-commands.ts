import { parseCommand } from '../sessions/chat-commands.js';
import type { Store } from '../store/store.js';
import type { ClusterHub, NodeView } from './cluster-hub.js';
import { ago } from './presence.js';
import type { ResultEvent } from './wire.js';

export const CLUSTER_HELP =
  '/nodes — the machines and their repositories · /start <node> <repo> (or <node> <agent> <folder>) — start a session there · /stop <session id> — stop a session on a node';

export interface HubCommandContext {
  hub: ClusterHub;
  store: Store;
  /** Who asked, as answers record it (e.g. `telegram:4242`). */
  by: string;
  /** Says something in the chat the command came from, now or later (what the node made of it). */
  say: (text: string) => Promise<unknown>;
  now: number;
}

/**
 * The hub's chat commands about machines: `/nodes`, `/start`, `/stop`. True when the text was one of them (and
 * answered); other text is left to the daemon and the relay.
 */
export async function hubCommand(text: string, ctx: HubCommandContext): Promise<boolean> {
  const command = parseCommand(text);
  if (!command) return false;
  const args = command.args.split(/\s+/).filter(Boolean);
  switch (command.command) {
    case 'nodes':
      await ctx.say(nodesText(await ctx.hub.nodes(), ctx.now));
      return true;
    case 'start':
      await ctx.say(await start(args, ctx));
      return true;
    case 'stop':
      await ctx.say(stop(args, ctx));
      return true;
    default:
      return false;
  }
}

function nodesText(nodes: NodeView[], now: number): string {
  if (nodes.length === 0)
    return 'No node has joined yet: start agent-bridge serve --node <name> on a machine.';
  return nodes
    .map((node) => {
      const state = node.online ? '🟢 connected' : `⚪ away (last seen ${ago(now - node.seenAt)} ago)`;
      const repos = node.repos.map((r) => `${r.name} (${r.agent})`).join(', ') || 'no repositories';
      return `${node.name} · ${node.hostname} · ${state} · ${node.running} session(s) · ${repos}`;
    })
    .join('\n');
}

async function start(args: string[], ctx: HubCommandContext): Promise<string> {
  const [node, first, folder] = args;
  if (!node || !first || args.length > 3)
    return 'Usage: /start <node> <repo>, or /start <node> <agent> <folder> (see /nodes)';
  if (!ctx.hub.knows(node)) return `No node ${node}: see /nodes`;
  const report = (result: ResultEvent) =>
    void ctx.say(result.ok ? `✅ ${node}: ${result.text}` : `⚠️ ${node}: ${result.text}`);
  if (folder) ctx.hub.request(node, { action: 'launch', agent: first, cwd: folder, by: ctx.by }, report);
  else ctx.hub.request(node, { action: 'start', repo: first, by: ctx.by }, report);
  return `Asked ${node} to start ${folder ? `${first} in ${folder}` : first}…`;
}

function stop(args: string[], ctx: HubCommandContext): string {
  const [prefix] = args;
  if (!prefix || args.length !== 1) return 'Usage: /stop <session id> (see /sessions)';
  const matches = ctx.store.sessions.findByPrefix(prefix).filter((s) => s.node && s.status === 'active');
  if (matches.length !== 1) return `No single running node session ${prefix}: see /sessions`;
  const session = matches[0]!;
  ctx.hub.request(session.node!, { action: 'stop', sessionId: session.id, by: ctx.by });
  return `Asked ${session.node} to stop ${session.id.slice(0, 8)}…`;
}
