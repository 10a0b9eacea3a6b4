import type * as NodePtyModule from 'node-pty';

/** node-pty is a native module: load it only when a session starts, so `agent-bridge --help` stays fast. */
type NodePty = typeof NodePtyModule;

let loaded: Promise<NodePty> | null = null;

export function loadNodePty(): Promise<NodePty> {
  loaded ??= import('node-pty').then((mod) => ((mod as { default?: NodePty }).default ?? mod) as NodePty);
  return loaded;
}
