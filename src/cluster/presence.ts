import type { Clock } from '../core/clock.js';

/**
 * Whether each node answered the hub's last ping, and when one last did: what the hub goes by when it must
 * say at once (an answer to one of its prompts) whether a node is there to act. Nodes are asked when it
 * matters (a start, a stop, the machines listed by the web UI or `/nodes`), never on a timer: an idle hub
 * sends nothing.
 */
export class NodePresence {
  private readonly known = new Map<string, { online: boolean; lastSeen: number | null }>();

  constructor(
    /** Asks a node now; never throws (no answer is false). */
    private readonly ping: (node: string) => Promise<boolean>,
    private readonly clock: Clock,
  ) {}

  /** Asks `node` now: whether it answered. */
  async check(node: string): Promise<boolean> {
    const online = await this.ping(node);
    const was = this.known.get(node);
    this.known.set(node, { online, lastSeen: online ? this.clock.now() : (was?.lastSeen ?? null) });
    return online;
  }

  /** Away as the last ping said (null: it answered, or it was not asked yet), and when it last answered. */
  away(node: string): { lastSeen: number | null } | null {
    const known = this.known.get(node);
    return known && !known.online ? { lastSeen: known.lastSeen } : null;
  }

  /** When `node` last answered a ping of this hub (null: not since it started). */
  lastSeen(node: string): number | null {
    return this.known.get(node)?.lastSeen ?? null;
  }
}

/** A duration as people say it in a line: `moments`, `5 min`, `3 h`. */
export function ago(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return 'moments';
  if (minutes < 120) return `${minutes} min`;
  return `${Math.round(minutes / 60)} h`;
}
