/**
 * Sessions on other machines, as a hub reaches them (the cluster implements it; one machine alone has none):
 * started on a named node, stopped there. Their rows in this store are mirrors; their nodes decide.
 */
export interface RemoteSessions {
  /** The machines sessions can be started on besides this one. */
  nodes(): Promise<RemoteNode[]>;
  /** Asks `node` to start an agent in a folder of its own; resolves with the session's id once it is listed here. */
  launch(
    node: string,
    request: { agent: string; cwd: string; args?: string[] },
    who: string,
  ): Promise<string>;
  /** Asks the node that runs it to stop a session. */
  stop(node: string, sessionId: string, who: string): void;
}

export interface RemoteNode {
  name: string;
  /** Connected now, as far as a ping can tell. */
  online: boolean;
  /** The agents installed there. */
  agents: string[];
}
