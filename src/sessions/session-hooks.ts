import { rmSync } from 'node:fs';
import path from 'node:path';
import type { AgentEvent } from '../core/events.js';
import { describeReply } from '../core/prompt.js';
import { permissionDecision } from '../drivers/hooks/claude-hook-events.js';
import { writeClaudeHookSettings } from '../drivers/hooks/claude-settings.js';
import type * as HookAnswers from '../drivers/hooks/hook-answers.js';
import type { HookSessionHandler } from '../drivers/hooks/hook-answers.js';
import type { Store } from '../store/store.js';
import type { HostConnection } from './host/host-connection.js';
import type { PromptCoordinator } from './prompt-coordinator.js';

/** What a session's Claude Code hooks act on. */
export interface HookContext {
  sessionId: string;
  store: Store;
  coordinator: () => PromptCoordinator;
  emit(event: AgentEvent): void;
  /** For sessions with chats: what the agent said before a tool, and its context use at an answer. */
  progress?: { note(text: string): void; contextAt(tokens: number): void };
}

/**
 * What a session does with each hook of Claude Code's: events into its stream, its own conversation id kept
 * for --resume, and a permission request raised as an exact prompt, answered through the hook (while Claude's
 * own dialog stays usable: whichever answers first wins). `answered` hears which prompt an answer was for.
 */
export function hookHandler(context: HookContext, answered?: (promptId: string) => void): HookSessionHandler {
  const { store, sessionId } = context;
  return {
    onEvent: (event) => context.emit(event),
    onAgentSessionId: (agentSessionId) => store.sessions.setAgentSessionId(sessionId, agentSessionId),
    onPermissionRequest: (prompt, payload, aborted) =>
      new Promise((resolve) => {
        let answer: object | null = null;
        void context
          .coordinator()
          .raiseFromHook(
            prompt,
            async (action, record) => {
              // Only while Claude still waits on the hook: once it gave up (answered at its own terminal), an
              // answer here would be reported as applied while nothing reached it.
              if (aborted.aborted)
                throw new Error('Claude no longer waits for this answer; nothing was sent');
              answer = permissionDecision(action, payload, record.decidedBy ?? 'agent-bridge');
              answered?.(record.id);
              return describeReply(action, record.choices);
            },
            aborted,
          )
          .then(() => resolve(answer));
      }),
    ...(context.progress
      ? { onProgress: context.progress.note, onContextTokens: context.progress.contextAt }
      : {}),
  };
}

/** The settings file that points Claude's hooks at agent-bridge, in the session's own folder (removed at its end). */
export function hookSettings(
  store: Store,
  sessionId: string,
  permissionTimeoutSeconds: number,
): { file: string; remove(): void } {
  const dir = path.join(store.dir, 'sessions', sessionId);
  return {
    file: writeClaudeHookSettings(dir, permissionTimeoutSeconds),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Hooks posted to the session's host and relayed to this controller (host-hooks.ts): each is acted on by the
 * handler `handlerFor` makes for it and answered back. An answer to a permission names its prompt (the handler
 * tells it through `answered`), so the host can tell a later controller that it went out. Events the host kept
 * while no one controlled the session (`late`) are acted on, not answered.
 */
export function relayHooks(
  connection: HostConnection,
  handlerFor: (answered: (promptId: string) => void) => HookSessionHandler,
): void {
  const aborts = new Map<number, AbortController>();
  // Loaded with the first hook (zod checks its payloads): a session without hooks never loads it.
  let answers: Promise<typeof HookAnswers> | null = null;
  connection.onFrame((frame) => {
    if (frame.type === 'hookGone') aborts.get(frame.id)?.abort();
    if (frame.type !== 'hook') return;
    const abort = new AbortController();
    aborts.set(frame.id, abort);
    let promptId: string | undefined;
    const handler = handlerFor((id) => (promptId = id));
    answers ??= import('../drivers/hooks/hook-answers.js');
    void answers
      .then(({ answerHookPost }) => answerHookPost(handler, frame.event, parseBody(frame.body), abort.signal))
      .then((answer) => {
        if (frame.late || abort.signal.aborted) return;
        connection.send({
          type: 'hookReply',
          id: frame.id,
          status: answer.status,
          body: answer.body === null ? '' : JSON.stringify(answer.body),
          ...(promptId ? { once: promptId } : {}),
        });
      })
      .catch(() => undefined)
      .finally(() => aborts.delete(frame.id));
  });
}

function parseBody(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
}
