import { jetstream, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Clock } from '../core/clock.js';
import type { ClusterStore } from '../store/cluster-store.js';
import type { Store } from '../store/store.js';
import { DurableReader } from './durable-reader.js';
import { EVENTS_STREAM, hubConsumer, parseEventSubject, type EventKind } from './names.js';
import {
  decode,
  helloEvent,
  messageEvent,
  promptSnapshot,
  resultEvent,
  sessionSnapshot,
  type ResultEvent,
} from './wire.js';

export interface HubMirrorOptions {
  hub: string;
  nc: NatsConnection;
  /** The hub's store, on a connection of its own (the relays and the web UI notice what it writes). */
  store: Store;
  cluster: ClusterStore;
  /** The channels a node's sessions are served on: every channel this hub hosts. */
  approveFrom: () => string[];
  clock: Clock;
  log: (line: string) => void;
  /** A node said what became of a request (an answer, typed text, a start). */
  onResult?: (node: string, result: ResultEvent, sessionId: string | null) => void;
  /** Something was mirrored: look for what to forward. */
  changed: (kind: EventKind) => void;
}

/**
 * Mirrors every node's sessions, prompts and messages into the hub's store, from the events stream, in order,
 * each event applied once (its stream sequence is kept with what it changed). A node speaks only for itself:
 * the subject names it (the server lets each node publish only under its own name), and a session or prompt
 * that is the hub's own or another node's is refused and audited. The relays then send the prompts to the
 * chats and the outcomes back, as for the hub's own sessions.
 */
export class HubMirror {
  private readonly reader: DurableReader;
  private cursor = '';

  constructor(private readonly options: HubMirrorOptions) {
    this.reader = new DurableReader(
      () => jetstream(options.nc).consumers.get(EVENTS_STREAM, hubConsumer(options.hub)),
      (message) => this.take(message),
      options.clock,
      (error) => options.log(`cluster: cannot read the nodes' events (${error.message}); trying again`),
    );
  }

  /** Reads from `cursorName` on (a stream made again starts a cursor of its own). */
  start(cursorName: string): void {
    this.cursor = cursorName;
    this.reader.start();
  }

  stop(): Promise<void> {
    return this.reader.stop();
  }

  private take(message: JsMsg): void {
    const parsed = parseEventSubject(message.subject);
    if (!parsed) return this.refuse(message.subject, 'not an agent-bridge event');
    let result: { node: string; result: ResultEvent; sessionId: string | null } | null = null;
    try {
      this.options.cluster.applyOnce(this.cursor, message.seq, () => {
        const refusal = this.apply(parsed.node, parsed.kind, parsed.sessionId, message.data);
        if (typeof refusal === 'string') this.refuse(message.subject, refusal);
        else if (refusal) result = { node: parsed.node, result: refusal, sessionId: parsed.sessionId };
      });
    } catch (error) {
      this.options.log(`cluster: could not apply ${message.subject}: ${(error as Error).message}`);
      throw error;
    }
    this.options.changed(parsed.kind);
    const said = result as { node: string; result: ResultEvent; sessionId: string | null } | null;
    if (said) this.options.onResult?.(said.node, said.result, said.sessionId);
  }

  /** Applies one event; a string says why it was refused, a result is passed on. */
  private apply(
    node: string,
    kind: EventKind,
    sessionId: string | null,
    data: Uint8Array,
  ): string | ResultEvent | null {
    const { cluster, store } = this.options;
    switch (kind) {
      case 'hello': {
        const hello = decode(helloEvent, data);
        if (!hello.ok) return hello.reason;
        cluster.recordNode(node, hello.value.hostname, hello.value);
        return null;
      }
      case 'session': {
        const session = decode(sessionSnapshot, data);
        if (!session.ok) return session.reason;
        if (session.value.id !== sessionId) return 'the subject names another session';
        return cluster.mirrorSession(node, session.value, this.options.approveFrom());
      }
      case 'prompt': {
        const prompt = decode(promptSnapshot, data);
        if (!prompt.ok) return prompt.reason;
        if (prompt.value.sessionId !== sessionId) return 'the subject names another session';
        return cluster.mirrorPrompt(node, prompt.value);
      }
      case 'message': {
        const message = decode(messageEvent, data);
        if (!message.ok) return message.reason;
        if (!sessionId || cluster.nodeOf(sessionId) !== node) return `no session of ${node} here`;
        store.channels.addMessage(sessionId, message.value.kind, message.value.text);
        return null;
      }
      case 'result': {
        const result = decode(resultEvent, data);
        if (!result.ok) return result.reason;
        if (sessionId && cluster.nodeOf(sessionId) !== node) return `no session of ${node} here`;
        if (sessionId && !result.value.ok)
          store.channels.addMessage(sessionId, 'notice', refusedNotice(node, result.value));
        return result.value;
      }
    }
  }

  private refuse(subject: string, reason: string): void {
    this.options.log(`cluster: refused ${subject}: ${reason}`);
    this.options.store.audit.record('CLUSTER_REFUSED', { subject, reason });
  }
}

function refusedNotice(node: string, result: ResultEvent): string {
  const what = result.kind === 'answer' ? 'answer' : result.kind === 'input' ? 'message' : 'request';
  return `⚠️ ${result.by}'s ${what} was not applied on ${node}: ${result.text}`;
}
