import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import { eventsFromHook, permissionPromptFromHook } from '../../src/drivers/hooks/claude-hook-events.js';
import { parseHookPayload } from '../../src/drivers/hooks/claude-hook-payload.js';
import { waitFor } from '../support/wait.js';
import { bearer, postHook, startHookHost, type HookHost } from '../support/hook-host.js';

// Property tests for hook bodies, the one input a Claude Code hook (or anything that reached the session
// host's socket) posts: whatever the body, it is a payload we act on or a clear refusal; nothing throws,
// nothing reaches a session with the wrong shape, and without the session's token nothing is read at all.

const FIELDS = [
  'session_id',
  'transcript_path',
  'cwd',
  'hook_event_name',
  'tool_name',
  'tool_input',
  'tool_use_id',
  'permission_suggestions',
  'last_assistant_message',
  'message',
  'notification_type',
  'prompt',
  'source',
  'model',
  '__proto__',
  'constructor',
] as const;

const EVENTS = [
  'PermissionRequest',
  'Stop',
  'PreToolUse',
  'PostToolUse',
  'Notification',
  'SessionStart',
  'StatusLine',
];

/** Objects with the fields we read, holding anything JSON can: the right type, the wrong one, null. */
const bodies: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue(),
  fc.dictionary(fc.constantFrom(...FIELDS), fc.oneof(fc.jsonValue(), fc.string()), { maxKeys: 8 }),
  fc.record(
    {
      tool_name: fc.constantFrom('Bash', 'Edit', 'AskUserQuestion', 'ExitPlanMode', ''),
      tool_input: fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue()),
      permission_suggestions: fc.array(fc.jsonValue(), { maxLength: 3 }),
      last_assistant_message: fc.string(),
      message: fc.string(),
    },
    { requiredKeys: [] },
  ),
);

function isOneLine(text: string): boolean {
  return !/[\r\n]/.test(text) && text.length <= 200;
}

describe('a hook body', () => {
  it('is a payload or a one-line reason, and a payload never makes the hook code throw', () => {
    fc.assert(
      fc.property(bodies, fc.constantFrom(...EVENTS), (body, event) => {
        const parsed = parseHookPayload(body);
        if ('error' in parsed) {
          expect(isOneLine(parsed.error)).toBe(true);
          return;
        }
        for (const agentEvent of eventsFromHook(event, parsed.payload)) {
          if (agentEvent.type === 'message' || agentEvent.type === 'activity')
            expect(typeof agentEvent.text).toBe('string');
        }
        const prompt = permissionPromptFromHook(parsed.payload);
        if (prompt) {
          expect(prompt.excerpt.length).toBeLessThanOrEqual(200);
          expect(prompt.choices.length).toBeGreaterThanOrEqual(2);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe("a session host's hook route, relaying to its controller", () => {
  let hookHost: HookHost;
  const events: AgentEvent[] = [];
  beforeAll(async () => {
    hookHost = await startHookHost({
      onEvent: (event) => events.push(event),
      onAgentSessionId: () => undefined,
      // Answered at once: "let Claude's own dialog decide".
      onPermissionRequest: () => Promise.resolve(null),
      // Read from the transcript a body names: any path at all must not break the hook.
      onProgress: () => undefined,
      onContextTokens: () => undefined,
    });
  });
  afterAll(() => hookHost.close());

  const post = (event: string, body: string | Uint8Array, token: string) =>
    postHook(hookHost.socket, encodeURIComponent(event), bearer(token), body);

  it('with the secret, answers any body with 2xx or a clear 400, never a server error', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          bodies.map((body) => JSON.stringify(body) ?? 'null'),
          fc.string({ maxLength: 40 }),
        ),
        fc.constantFrom(...EVENTS, 'Unknown', '..%2f'),
        async (body, event) => {
          events.length = 0;
          const { status, text } = await post(event, body, hookHost.token);
          // The host routes only an event's name (letters): any other path is no hook of Claude's.
          expect(/^[A-Za-z]{1,40}$/.test(event) ? [200, 204, 400] : [404]).toContain(status);
          if (status === 400) expect(isOneLine(text)).toBe(true);
          for (const agentEvent of events)
            if (agentEvent.type === 'message') expect(typeof agentEvent.text).toBe('string');
        },
      ),
      { numRuns: 150 },
    );
  });

  it('without the secret, refuses and reports every post, whatever it carries', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 200 }),
        fc.oneof(
          fc.constant(''),
          fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 }),
          fc.string(),
        ),
        async (body, token) => {
          fc.pre(token !== hookHost.token);
          const before = hookHost.refused.length;
          expect((await post('PermissionRequest', body, token.replace(/[^\x21-\x7e]/g, ''))).status).toBe(
            401,
          );
          await waitFor('the refusal told', () => hookHost.refused.length === before + 1);
        },
      ),
      { numRuns: 150 },
    );
  });
});
