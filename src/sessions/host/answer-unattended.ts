import { hostname } from 'node:os';
import { getAgent, isAgentId } from '../../agents/registry.js';
import type { Clock } from '../../core/clock.js';
import { isProcessAlive } from '../../drivers/terminal/process-tree.js';
import type { PromptRecord } from '../../store/prompt-store.js';
import type { SessionRecord } from '../../store/session-store.js';
import { openStore, type Store } from '../../store/store.js';
import { AgentSession } from '../agent-session.js';
import { answerPrompt, type AnswerOutcome, type AnswerRequest } from '../answer-prompt.js';
import { headlessControllerOptions, HostConnection } from './host-connection.js';
import { viewOf } from './hosted-terminal.js';

/** How long the answer may take to be typed before this process lets the session go with it recorded. */
export const TYPED_WAIT_MS = 10_000;

/**
 * What became of a recorded answer here: typed; not typed (the prompt failed: `note` says why); or still
 * waiting after TYPED_WAIT_MS (a prompt before it unanswered), for whoever controls the session next.
 */
export type Typing = { typed: true } | { typed: false; note: string | null } | { typed: 'later' };

/** The answer's outcome; for one recorded here, what became of it (`typing`). */
export type UnattendedOutcome = AnswerOutcome & { typing?: Typing };

/**
 * The session a prompt belongs to when it runs in a session host of this machine that no agent-bridge
 * controls (`run --detach` with no `serve`, its `run` killed): null for any other.
 */
export function unattendedSession(store: Store, promptRef: string): SessionRecord | null {
  const matches = store.prompts.findByPrefix(promptRef);
  if (matches.length !== 1) return null;
  const session = store.sessions.get(matches[0]!.sessionId);
  if (!session || session.status !== 'active' || !session.sessionHost) return null;
  if (session.host !== hostname() || !isAgentId(session.agent)) return null;
  if (!isProcessAlive(session.sessionHost.process)) return null;
  return store.sessions.controllerAlive(session, isProcessAlive) ? null : session;
}

/**
 * An answer to a prompt of an unattended session: this process takes the session over from its host, as
 * `serve` would (the prompts checked against the screen it shows), records the answer, waits until its
 * controller typed it, and lets the session go again. Someone else taking control first: the answer is only
 * recorded, for them to type. The session's own connection is a second one: SQLite tells a connection of
 * others' commits, so the answer recorded on `store` reaches the controller as any other would.
 */
export async function answerUnattended(
  store: Store,
  request: AnswerRequest,
  session: SessionRecord,
  clock: Clock,
  onNotice: (line: string) => void,
): Promise<UnattendedOutcome> {
  const connection = await HostConnection.open(
    headlessControllerOptions(store.dir, session, 'cli', 'if-free', clock),
  ).catch(() => null);
  if (!connection || connection.welcome.control !== 'granted') {
    connection?.close();
    return answerPrompt(store, request);
  }
  const sessionStore = openStore({ dir: store.dir });
  let closed: (record: PromptRecord) => void = () => undefined;
  const agent = await AgentSession.takeOver({
    spec: getAgent(session.agent),
    record: session,
    connection,
    view: viewOf(connection),
    store: sessionStore,
    clock,
    autoTrust: true,
    hooks: connection.welcome.session.hooks,
    onNotice,
    observers: [{ closed: (record) => closed(record) }],
  }).catch((error: unknown) => {
    connection.close();
    sessionStore.close();
    throw error;
  });
  try {
    const outcome = answerPrompt(store, request);
    if (!outcome.ok) return outcome;
    const typing = await new Promise<Typing>((resolve) => {
      const timer = clock.after(TYPED_WAIT_MS, () => resolve({ typed: 'later' }));
      closed = (record) => {
        if (record.id !== outcome.record.id) return;
        timer.cancel();
        const typed = record.status === 'injected' || record.status === 'resolved';
        resolve(typed ? { typed } : { typed, note: record.note });
      };
    });
    return { ...outcome, typing };
  } finally {
    await agent.letGo('approvals answer');
    sessionStore.close();
  }
}

/** A person's answer from this process: typed from here when no agent-bridge controls its session. */
export function answerFromHere(
  clock: Clock,
  onNotice: (line: string) => void,
): (store: Store, request: AnswerRequest) => Promise<UnattendedOutcome> {
  return async (store, request) => {
    const unattended = unattendedSession(store, request.promptRef);
    return unattended
      ? answerUnattended(store, request, unattended, clock, onNotice)
      : answerPrompt(store, request);
  };
}
