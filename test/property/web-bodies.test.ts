import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAnswer, parseMessage, parseStartSession } from '../../src/channels/web/api-bodies.js';
import { rawRequest } from '../support/raw-http.js';
import { WEB_TOKEN, WebWorld } from '../support/web-world.js';

// Property tests for the web API's JSON bodies: whatever arrives, it is the one documented shape or a 400 with
// a one-line message; nothing else starts a session, and no body makes the server fail (5xx).

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  [Object.prototype, null].includes(Object.getPrototypeOf(value) as object | null);
const isText = (value: unknown, min: number, max: number): value is string =>
  typeof value === 'string' && value.length >= min && value.length <= max && !value.includes('\0');

/** The shapes API.md documents, written independently of the zod schema. */
function isStartBody(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  if (Object.keys(value).some((key) => !['agent', 'cwd', 'args', 'node'].includes(key))) return false;
  const { args, node } = value;
  const argsOk =
    args === undefined ||
    (Array.isArray(args) && args.length <= 100 && args.every((a) => isText(a, 0, 4096)));
  // A machine of the cluster: a node's name.
  const nodeOk = node === undefined || (typeof node === 'string' && /^[a-z0-9][a-z0-9_-]{0,31}$/.test(node));
  return isText(value.agent, 1, 64) && isText(value.cwd, 1, 4096) && argsOk && nodeOk;
}

function isAnswerBody(value: unknown): boolean {
  return (
    isPlainObject(value) &&
    Object.keys(value).length === 1 &&
    typeof value.answer === 'string' &&
    value.answer.length <= 10_000
  );
}

/** Text a person may send an agent: within 10,000 characters, not blank, no controls but tab and line ends. */
function isMessageBody(value: unknown): boolean {
  if (!isPlainObject(value) || Object.keys(value).length !== 1 || typeof value.text !== 'string')
    return false;
  const { text } = value;
  // eslint-disable-next-line no-control-regex -- controls (but tab, LF, CR) and bidi overrides are refused
  const refused = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
  return text.length <= 10_000 && text.trim() !== '' && !refused.test(text);
}

const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', '\0', 'shell', 'a\0b'));
const startLike = fc.record(
  {
    agent: fc.oneof(text, fc.anything()),
    cwd: fc.oneof(text, fc.anything()),
    args: fc.oneof(fc.array(text, { maxLength: 4 }), fc.anything()),
    node: fc.oneof(text, fc.constantFrom('laptop', 'build-box', 'Laptop', 'a.b', '-x'), fc.anything()),
    extra: fc.anything(),
  },
  { requiredKeys: [] },
);
const answerLike = fc.record(
  { answer: fc.oneof(text, fc.anything()), other: fc.anything() },
  { requiredKeys: [] },
);
const messageLike = fc.record(
  {
    text: fc.oneof(text, fc.constantFrom(' ', '\t\n', 'ok\r\n', '\x1b[2J', '\u202e', 'a\x9b'), fc.anything()),
    other: fc.anything(),
  },
  { requiredKeys: [] },
);
const bodies = fc.oneof(startLike, answerLike, messageLike, fc.anything(), fc.jsonValue());

describe('web API bodies, parsed alone', () => {
  it('take exactly the documented start shape, and say what to fix in one line otherwise', () => {
    fc.assert(
      fc.property(bodies, (body) => {
        const parsed = parseStartSession(body);
        expect(parsed.ok).toBe(isStartBody(body));
        if (parsed.ok) expect(parsed.value).toEqual(body);
        else expect(parsed.error).toMatch(/^send \{ agent, cwd, args\?, node\? \}[^\n]{0,400}$/);
      }),
      { numRuns: 2000 },
    );
  });

  it('take exactly the documented answer shape', () => {
    fc.assert(
      fc.property(bodies, (body) => {
        const parsed = parseAnswer(body);
        expect(parsed.ok).toBe(isAnswerBody(body));
        if (!parsed.ok) expect(parsed.error).toMatch(/^send \{ answer: "\.\.\." \}[^\n]{0,400}$/);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('a message body, parsed alone', () => {
  it('takes exactly the documented shape: text, not blank, without control or bidi-override characters', () => {
    fc.assert(
      fc.property(bodies, (body) => {
        const parsed = parseMessage(body);
        expect(parsed.ok, JSON.stringify(body)).toBe(isMessageBody(body));
        if (!parsed.ok) expect(parsed.error).toMatch(/^send \{ text: "\.\.\." \}[^\n]{0,400}$/);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('web API bodies, sent to the server', () => {
  let world: WebWorld;
  beforeAll(async () => {
    world = await new WebWorld().start();
  });
  afterAll(async () => world.close());

  const rawBodies = fc.oneof(
    bodies.map((value) => JSON.stringify(value) ?? 'null'),
    fc.string(),
    fc.constantFrom('{', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}', '[]', '""', 'null'),
  );

  it('never fail and never start anything from a body that is not a session to start', async () => {
    await fc.assert(
      fc.asyncProperty(
        rawBodies,
        fc.constantFrom(
          '/api/sessions',
          '/api/prompts/nope/answer',
          '/api/sessions/nope/stop',
          '/api/sessions/nope/message',
        ),
        fc.constantFrom('application/json', 'text/plain', 'application/json; charset=utf-8'),
        async (body, route, type) => {
          const response = await rawRequest(
            world.port,
            [
              `POST ${route} HTTP/1.1`,
              `Host: ${world.host}`,
              'Connection: close',
              `Authorization: Bearer ${WEB_TOKEN}`,
              `Content-Type: ${type}`,
              `Content-Length: ${Buffer.byteLength(body)}`,
            ].join('\r\n'),
            body,
          );
          expect(response.status, `${route} ${body}`).toBeLessThan(500);
          if (route === '/api/sessions') expect(response.status).not.toBe(201);
          const error = (JSON.parse(response.body) as { error?: unknown; message?: unknown }).error;
          if (response.status >= 400) expect(typeof error === 'string' ? error : '').not.toMatch(/\n/);
        },
      ),
      { numRuns: 300 },
    );
    expect(world.live.all()).toHaveLength(0);
  });
});
