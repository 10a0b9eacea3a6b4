/**
 * Sessions on other machines, as a hub reaches them (the cluster implements it; one machine alone has none):
 * started on a named node, stopped there. Their rows in this store are mirrors; their nodes decide.
 */
export interface RemoteSessions {
  /** The machines sessions can be started on besides this one. */
  nodes(): Promise<RemoteNode[]>;
  /**
   * Asks `node` to start an agent in a folder of its own; resolves with the session's id once it is listed here.
   * Rejects at once, asking nothing, with a {@link MachineAwayError} when the node does not answer a ping; and
   * when it does not answer the request in time (the request then expires: the node never starts it later).
   */
  launch(
    node: string,
    request: { agent: string; cwd: string; args?: string[] },
    who: string,
  ): Promise<string>;
  /**
   * Asks the node that runs it to stop a session. Throws a {@link MachineAwayError}, asking nothing, while that
   * node is away (a stop is not kept for later: the person stops it when the machine is back).
   */
  stop(node: string, sessionId: string, who: string): Promise<void>;
  /**
   * Whether `node` is away as the hub last knew (its last ping): null when it answered, else when it was last
   * seen. An answer to one of its prompts waits for it and is applied when it is back.
   */
  away(node: string): { lastSeen: number | null } | null;
}

export interface RemoteNode {
  name: string;
  /** Connected now, as far as a ping can tell. */
  online: boolean;
  /** The agents installed there. */
  agents: string[];
  /** When it was last seen connected (ms since the epoch; null: never by this hub). */
  lastSeen: number | null;
}

/**
 * A machine of the cluster is away (or this hub is cut off from the bus): nothing was asked of it. Its
 * `statusCode` is the HTTP answer it makes (409: the request conflicts with the machine's state).
 */
export class MachineAwayError extends Error {
  override name = 'MachineAwayError';
  readonly statusCode = 409;

  constructor(
    readonly node: string,
    readonly lastSeen: number | null,
    message: string,
  ) {
    super(message);
  }
}
