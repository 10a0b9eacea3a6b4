import { jetstream, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Clock } from '../core/clock.js';
import { answerPrompt } from '../sessions/answer-prompt.js';
import { textOutcomeNotice, type TextOutcome } from '../sessions/typed-text.js';
import type { ClusterStore } from '../store/cluster-store.js';
import type { Store } from '../store/store.js';
import { COMMANDS_STREAM, nodeConsumer, subjects } from './names.js';
import type { OutboxSender } from './outbox.js';
import { DurableReader } from './durable-reader.js';
import { ensureNodeConsumer } from './streams.js';
import {
  answerCommand,
  controlCommand,
  decode,
  encode,
  inputCommand,
  type AnswerCommand,
  type ControlCommand,
  type InputCommand,
  type ResultEvent,
} from './wire.js';

/** What a node does for its hubs, on its own sessions (the daemon's and those started from afar). */
export interface NodeActions {
  /** Text for a session: into a repository's through the daemon, else through the store. */
  send(sessionId: string, text: string, sentBy: string): Promise<TextOutcome>;
  startRepo(name: string): Promise<boolean>;
  /** Starts an agent in a folder of this machine; says what and the session's id. */
  launch(
    request: { agent: string; cwd: string; args?: string[] },
    by: string,
  ): Promise<{ text: string; sessionId: string }>;
  stop(sessionId: string, by: string): Promise<boolean>;
  cancel(sessionId: string): boolean;
  /** An answer was recorded: the session in this process types it at once. */
  answered(sessionId: string): void;
}

export interface NodeCommandsOptions {
  node: string;
  nc: NatsConnection;
  /** The node's store, on the same connection as the publisher's: it is poked after each write. */
  store: Store;
  cluster: ClusterStore;
  outbox: OutboxSender;
  actions: NodeActions;
  clock: Clock;
  log: (line: string) => void;
  /** Told after each command was handled (the publisher says what changed). */
  changed: () => void;
}

type Outcome = { ok: boolean; text: string; sessionId: string | null; started?: string };

/**
 * Takes what the hubs ask of this node from its own durable consumer, in order, one at a time: answers (applied
 * through the node's own guarded transition, by prompt id, session id and nonce: the node decides), typed
 * text, and starting or stopping sessions. Each request is handled once (its id is remembered with its
 * result), acknowledged, and its result published for the people who asked.
 */
export class NodeCommands {
  private readonly reader: DurableReader;

  constructor(private readonly options: NodeCommandsOptions) {
    this.reader = new DurableReader(
      async () => {
        await ensureNodeConsumer(options.nc, options.node);
        return jetstream(options.nc, { checkAPI: false }).consumers.get(
          COMMANDS_STREAM,
          nodeConsumer(options.node),
        );
      },
      (message) => this.handle(message),
      options.clock,
      // The streams are made by a hub: until one has run, there is nothing to read.
      (error) => options.log(`cluster: cannot read commands yet (${error.message}); trying again`),
    );
  }

  start(): void {
    this.reader.start();
  }

  stop(): Promise<void> {
    return this.reader.stop();
  }

  private async handle(message: JsMsg): Promise<void> {
    const { node } = this.options;
    const kind = (['answer', 'input', 'control'] as const).find(
      (k) => message.subject === subjects.command(node, k),
    );
    try {
      if (kind === 'answer') await this.once(message, answerCommand, (c) => this.answer(c));
      else if (kind === 'input') await this.once(message, inputCommand, (c) => this.input(c));
      else if (kind === 'control') await this.once(message, controlCommand, (c) => this.control(c));
      else this.options.log(`cluster: ignored a command on ${message.subject}`);
    } finally {
      this.options.changed();
    }
  }

  /** Decoded, handled once per request id, its result kept to be published (again, after a crash). */
  private async once<T extends AnswerCommand | InputCommand | ControlCommand>(
    message: JsMsg,
    schema: Parameters<typeof decode<T>>[0],
    apply: (command: T) => Promise<Outcome> | Outcome,
  ): Promise<void> {
    const decoded = decode(schema, message.data);
    if (!decoded.ok) {
      this.options.store.audit.record('CLUSTER_REFUSED', {
        subject: message.subject,
        reason: decoded.reason,
      });
      return;
    }
    const command = decoded.value;
    const resultId = `result:${this.options.node}:${command.requestId}`;
    if (this.options.cluster.has(resultId)) return;
    const outcome = await apply(command);
    const result: ResultEvent = {
      requestId: command.requestId,
      kind: kindOf(message.subject),
      ok: outcome.ok,
      text: outcome.text,
      by: byOf(command),
      ...(outcome.started ? { started: outcome.started } : {}),
    };
    const subject = subjects.event(this.options.node, 'result', outcome.sessionId ?? undefined);
    this.options.outbox.add({ id: resultId, subject, payload: new TextDecoder().decode(encode(result)) });
  }

  private answer(command: AnswerCommand): Outcome {
    const { store } = this.options;
    const record = store.prompts.get(command.promptId);
    // The prompt must be this node's, in the session the answer names: verified here, whatever the bus allowed.
    if (!record || record.sessionId !== command.sessionId) {
      store.audit.record('REPLY_REJECTED', {
        prompt_ref: command.promptId,
        decided_by: command.decidedBy,
        reason: 'no such prompt in that session on this node',
      });
      return { ok: false, text: 'no such prompt on this machine', sessionId: command.sessionId };
    }
    const outcome = answerPrompt(store, {
      promptRef: record.id,
      sessionId: command.sessionId,
      nonce: command.nonce,
      raw: '',
      reply: command.reply,
      decidedBy: command.decidedBy,
    });
    if (outcome.ok) this.options.actions.answered(record.sessionId);
    // An answer that does not fit the prompt is refused here like any other, and audited (it came from afar).
    else if (outcome.code === 'bad_reply')
      store.audit.record('REPLY_REJECTED', {
        session_id: record.sessionId,
        prompt_id: record.id,
        decided_by: command.decidedBy,
        reason: outcome.reason,
      });
    return {
      ok: outcome.ok,
      text: outcome.ok ? `Answered: ${outcome.summary}` : outcome.reason,
      sessionId: record.sessionId,
    };
  }

  private async input(command: InputCommand): Promise<Outcome> {
    const session = this.options.store.sessions.get(command.sessionId);
    if (!session || session.node !== null || session.status !== 'active')
      return { ok: false, text: 'that session is not running on this machine', sessionId: command.sessionId };
    const outcome = await this.options.actions.send(session.id, command.text, command.sentBy);
    return {
      ok: outcome.type !== 'refused',
      text: textOutcomeNotice(outcome) ?? 'typed into the session',
      sessionId: session.id,
    };
  }

  private async control(command: ControlCommand): Promise<Outcome> {
    const { actions, node } = this.options;
    try {
      switch (command.action) {
        case 'start':
          return (await actions.startRepo(command.repo))
            ? { ok: true, text: `${command.repo} started on ${node}`, sessionId: null }
            : { ok: false, text: `${node} has no repository ${command.repo}`, sessionId: null };
        case 'launch': {
          const expired = this.expired(command);
          if (expired) return expired;
          const { agent, cwd, args } = command;
          const launched = await actions.launch({ agent, cwd, ...(args ? { args } : {}) }, command.by);
          return { ok: true, text: launched.text, sessionId: null, started: launched.sessionId };
        }
        case 'stop':
          return (await actions.stop(command.sessionId, command.by))
            ? { ok: true, text: `stopped on ${node}`, sessionId: command.sessionId }
            : {
                ok: false,
                text: `no running session ${command.sessionId.slice(0, 8)} on ${node}`,
                sessionId: null,
              };
        case 'cancel':
          return actions.cancel(command.sessionId)
            ? { ok: true, text: 'interrupted', sessionId: command.sessionId }
            : { ok: false, text: 'not running', sessionId: command.sessionId };
      }
    } catch (error) {
      return { ok: false, text: (error as Error).message, sessionId: null };
    }
  }

  /**
   * A start that came after its hub gave up on it (the hub told the person it failed; a retry may be on its
   * way): refused, and audited, never applied late. Null while it holds.
   */
  private expired(command: Extract<ControlCommand, { action: 'launch' }>): Outcome | null {
    const { clock, node, store } = this.options;
    if (command.expiresAt === undefined || clock.now() <= command.expiresAt) return null;
    const late = Math.round((clock.now() - command.expiresAt) / 1000);
    const reason = `the start reached ${node} ${late} s after it expired: the hub had given up on it`;
    store.audit.record('CLUSTER_REFUSED', {
      subject: subjects.command(node, 'control'),
      request_id: command.requestId,
      by: command.by,
      reason,
    });
    this.options.log(`cluster: refused ${command.agent} in ${command.cwd} for ${command.by}: ${reason}`);
    return { ok: false, text: `${reason}; nothing was started`, sessionId: null };
  }
}

function kindOf(subject: string): ResultEvent['kind'] {
  return subject.endsWith('.answer') ? 'answer' : subject.endsWith('.input') ? 'input' : 'control';
}

function byOf(command: AnswerCommand | InputCommand | ControlCommand): string {
  if ('decidedBy' in command) return command.decidedBy;
  if ('sentBy' in command) return command.sentBy;
  return command.by;
}
