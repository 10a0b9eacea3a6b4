import { MACHINE_NAME } from '../core/machine-name.js';

/**
 * Names on the bus. Node → hub events go to `ab.ev.<node>.<kind>[.<session>]`, hub → node commands to
 * `ab.cmd.<node>.<kind>`: the node's name is a subject token, so the server's per-user permissions say which
 * node may publish what, and the receiving side learns the sender from the subject, never from the payload.
 */

export const EVENTS_STREAM = 'AB_EVENTS';
export const COMMANDS_STREAM = 'AB_COMMANDS';
export const DEFAULT_HUB = 'hub';

/** Why a name cannot be a node's (or a hub's) name; null when it can. */
export function nameProblem(name: string): string | null {
  if (MACHINE_NAME.test(name)) return null;
  return `"${name}" cannot name a machine: use 1 to 32 lowercase letters, digits, - or _ (starting with a letter or digit)`;
}

export type EventKind = 'hello' | 'session' | 'prompt' | 'message' | 'result';
export type CommandKind = 'answer' | 'input' | 'control';

export const subjects = {
  /** Everything nodes say (the events stream's subjects). */
  allEvents: 'ab.ev.>',
  /** Everything hubs ask of nodes (the commands stream's subjects). */
  allCommands: 'ab.cmd.>',
  nodeEvents: (node: string) => `ab.ev.${node}.>`,
  event: (node: string, kind: EventKind, sessionId?: string) =>
    sessionId ? `ab.ev.${node}.${kind}.${sessionId}` : `ab.ev.${node}.${kind}`,
  nodeCommands: (node: string) => `ab.cmd.${node}.>`,
  command: (node: string, kind: CommandKind) => `ab.cmd.${node}.${kind}`,
  /** A hub asks whether a node is connected now (core NATS request; nobody answers when it is not). */
  ping: (node: string) => `ab.ping.${node}`,
  /** Each user's own replies (JetStream acks, pull batches) come under its own prefix, readable only by it. */
  inbox: (who: string) => `_INBOX_${who}`,
};

/** The durable consumer a node reads its commands with; a hub's reads every node's events. */
export const nodeConsumer = (node: string) => `node_${node}`;
export const hubConsumer = (hub: string) => `hub_${hub}`;

/** The parts of an event's subject, or null when it is not one (`ab.ev.<node>.<kind>[.<session>]`). */
export function parseEventSubject(
  subject: string,
): { node: string; kind: EventKind; sessionId: string | null } | null {
  const parts = subject.split('.');
  if (parts.length < 4 || parts.length > 5 || parts[0] !== 'ab' || parts[1] !== 'ev') return null;
  const [, , node, kind, sessionId] = parts;
  if (!node || nameProblem(node) !== null) return null;
  if (!['hello', 'session', 'prompt', 'message', 'result'].includes(kind!)) return null;
  return { node, kind: kind as EventKind, sessionId: sessionId ?? null };
}
