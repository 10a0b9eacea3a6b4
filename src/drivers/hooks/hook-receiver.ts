import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AgentEvent } from '../../core/events.js';
import type { DetectedPrompt } from '../../core/prompt.js';
import { eventsFromHook, permissionPromptFromHook, wantsProgressNote } from './claude-hook-events.js';
import { parseHookPayload, type ClaudeHookPayload } from './claude-hook-payload.js';
import {
  assistantTextBeforeRequestedTool,
  assistantTextBeforeTool,
  contextTokensAtAnswer,
} from './claude-transcript.js';

/** What one agent session does with its hooks. */
export interface HookSessionHandler {
  onEvent(event: AgentEvent): void;
  /** Claude's own session id (SessionStart), kept for --resume. */
  onAgentSessionId(id: string): void;
  /**
   * An exact permission prompt. Resolve with the hook's JSON answer, or null to let Claude's own dialog
   * decide. `aborted` fires if Claude gives up on the hook (someone answered at the terminal).
   */
  onPermissionRequest(
    prompt: DetectedPrompt,
    payload: ClaudeHookPayload,
    aborted: AbortSignal,
  ): Promise<object | null>;
  /**
   * What the agent said before the tool it is about to run (PreToolUse, read from its transcript). Only
   * sessions that want progress notes give this; the hook answers after it returned, so the note comes first.
   */
  onProgress?(text: string): void;
  /**
   * How many tokens the context held at the answer a Stop hook reports (from the transcript), told before
   * the answer itself, so the footer under it is current (Claude's status line updates only after it).
   */
  onContextTokens?(tokens: number): void;
}

export interface UnauthorizedHook {
  event: string;
  remoteAddress: string;
  reason: string;
}

export interface HookRegistration {
  token: string;
  /** Environment for the agent process, read by the hook client. */
  env: Record<string, string>;
  unregister(): void;
}

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * A loopback HTTP endpoint for Claude Code hooks. Each session gets its own secret; a post without it is
 * refused (401) and reported, never acted on, and never read: the secret is checked before the body is parsed,
 * so a malformed or oversized forgery is refused and reported like any other. A post with the secret whose
 * body is not a hook payload is refused (400) with what was wrong.
 */
export class HookReceiver {
  private readonly sessions = new Map<string, HookSessionHandler>();

  private constructor(
    private readonly server: FastifyInstance,
    readonly url: string,
  ) {}

  static async start(onUnauthorized: (attempt: UnauthorizedHook) => void): Promise<HookReceiver> {
    const { default: Fastify } = await import('fastify');
    const server = Fastify({ bodyLimit: MAX_BODY_BYTES, logger: false });
    let receiver: HookReceiver | null = null;
    const authenticated = new WeakMap<FastifyRequest, HookSessionHandler>();
    // onRequest runs before fastify reads the body: nothing of a post without the secret is parsed.
    server.addHook('onRequest', async (request, reply) => {
      const handler = receiver?.authenticate(request.headers.authorization);
      if (handler) return void authenticated.set(request, handler);
      const event = (request.params as { event?: unknown } | undefined)?.event;
      report(onUnauthorized, {
        event: (typeof event === 'string' ? event : request.url).slice(0, 100),
        remoteAddress: request.ip,
        reason: 'missing or wrong session token',
      });
      return reply.code(401).send({ error: 'unauthorized' });
    });
    server.post<{ Params: { event: string } }>('/hooks/:event', async (request, reply) => {
      const handler = authenticated.get(request);
      if (!handler) return reply.code(401).send({ error: 'unauthorized' });
      // The response closing before we answered means the hook client went away (Claude moved on).
      const abort = new AbortController();
      const onClose = () => {
        if (!reply.raw.writableFinished) abort.abort();
      };
      reply.raw.once('close', onClose);
      try {
        const answer = await answerHookPost(handler, request.params.event, request.body ?? {}, abort.signal);
        return reply.code(answer.status).send(answer.body ?? undefined);
      } finally {
        reply.raw.off('close', onClose);
      }
    });
    const address = await server.listen({ host: '127.0.0.1', port: 0 });
    receiver = new HookReceiver(server, address);
    return receiver;
  }

  register(handler: HookSessionHandler): HookRegistration {
    const token = randomBytes(32).toString('hex');
    this.sessions.set(token, handler);
    return {
      token,
      env: { AGENT_BRIDGE_HOOK_URL: this.url, AGENT_BRIDGE_HOOK_TOKEN: token },
      unregister: () => this.sessions.delete(token),
    };
  }

  async close(): Promise<void> {
    await this.server.close();
  }

  private authenticate(header: string | undefined): HookSessionHandler | undefined {
    const presented = /^Bearer ([0-9a-f]{64})$/.exec(header ?? '')?.[1];
    if (!presented) return undefined;
    for (const [token, handler] of this.sessions) {
      if (timingSafeEqual(Buffer.from(token), Buffer.from(presented))) return handler;
    }
    return undefined;
  }
}

/** Reporting a refusal must not fail it: a full disk still refuses the post. */
function report(onUnauthorized: (attempt: UnauthorizedHook) => void, attempt: UnauthorizedHook): void {
  try {
    onUnauthorized(attempt);
  } catch {
    // The audit log cannot be written; the post is refused all the same.
  }
}

/**
 * A hook post from a session's agent, authenticated already (by this receiver's token, or by the session host
 * that relayed it): acted on, and answered with the status and JSON body the hook client prints. `aborted`
 * fires when the hook client went away (Claude moved on: answered in its own dialog).
 */
export async function answerHookPost(
  handler: HookSessionHandler,
  event: string,
  body: unknown,
  aborted: AbortSignal,
): Promise<{ status: number; body: object | null }> {
  const parsed = parseHookPayload(body);
  if ('error' in parsed) return { status: 400, body: { error: `not a hook payload: ${parsed.error}` } };
  const answer = await dispatch(handler, event, parsed.payload, aborted);
  return answer === null ? { status: 204, body: null } : { status: 200, body: answer };
}

async function dispatch(
  handler: HookSessionHandler,
  event: string,
  payload: ClaudeHookPayload,
  aborted: AbortSignal,
): Promise<object | null> {
  if (event === 'SessionStart' && payload.session_id) handler.onAgentSessionId(payload.session_id);
  if (event === 'Stop' && handler.onContextTokens && payload.transcript_path) {
    const tokens = await contextTokensAtAnswer(payload.transcript_path, payload.last_assistant_message);
    if (tokens !== null) handler.onContextTokens(tokens);
  }
  for (const agentEvent of eventsFromHook(event, payload)) handler.onEvent(agentEvent);
  if (handler.onProgress && wantsProgressNote(event, payload)) {
    const file = payload.transcript_path!;
    const text =
      event === 'PreToolUse'
        ? await assistantTextBeforeTool(file, payload.tool_use_id)
        : await assistantTextBeforeRequestedTool(file, payload.tool_name ?? '', payload.tool_input);
    if (text) handler.onProgress(text);
  }
  if (event !== 'PermissionRequest') return null;
  const prompt = permissionPromptFromHook(payload);
  if (!prompt) return null;
  return handler.onPermissionRequest(prompt, payload, aborted);
}
