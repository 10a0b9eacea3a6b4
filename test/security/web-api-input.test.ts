import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_BODY_BYTES } from '../../src/channels/web/web-server.js';
import { SessionsWebBackend } from '../../src/sessions/web-backend.js';
import { rawRequest, type RawExchange } from '../support/raw-http.js';
import { openPrompt, yesNoPrompt } from '../support/temp-store.js';
import { WEB_TOKEN, WebWorld } from '../support/web-world.js';

// What the web API takes, attacked with the token (a script, or a page of ours that was tricked): a prompt is
// answered by its exact full id only (the CLI's prefix matching is a CLI convenience: here an empty id or four
// characters answered the only prompt waiting), every other id is exact too; a session's name is plain text on
// one line (no C1 control, bidi override or line separator to hide or reorder what lists show); and what
// Fastify itself refuses (bad JSON, an empty body, another content type, a body too large) is answered as every
// refusal is, `{ error }` saying what to fix, never Fastify's own shape or a stack.

const SESSION = '0f5e2c1a-7b3d-4e9f-a6c8-1d2b3c4d5e6f';
const bearer = `Authorization: Bearer ${WEB_TOKEN}`;

let world: WebWorld;
beforeEach(async () => {
  world = await new WebWorld().start();
  world.store.sessions.create({ id: SESSION, agent: 'shell', cwd: world.dir, pid: 1, recording: null });
});
afterEach(async () => world.close());

/** A request written byte for byte (curl --path-as-is): no client collapses `//` or normalises the target. */
function raw(method: string, target: string, body?: string, headers: string[] = []): Promise<RawExchange> {
  return rawRequest(
    world.port,
    [
      `${method} ${target} HTTP/1.1`,
      `Host: ${world.host}`,
      'Connection: close',
      bearer,
      ...(body === undefined ? [] : [`Content-Length: ${Buffer.byteLength(body)}`]),
      ...headers,
    ].join('\r\n'),
    body ?? '',
  );
}

const json = ['Content-Type: application/json'];

/** The documented refusal: `{ error }` and nothing else (no statusCode, code, message or stack). */
function expectError(exchange: RawExchange, status: number): string {
  expect(exchange.status, exchange.body).toBe(status);
  const body = JSON.parse(exchange.body) as Record<string, unknown>;
  expect(Object.keys(body)).toEqual(['error']);
  const error = body.error as string;
  expect(error).not.toMatch(/\n|\bat .*:\d+:\d+|node_modules|FST_/);
  return error;
}

describe('answering a prompt from the web', () => {
  it('takes the exact full id only: no empty id, no prefix, no other case', async () => {
    const prompt = openPrompt(world.store, SESSION, yesNoPrompt({ key: 'k' }));
    const answer = (id: string) => raw('POST', `/api/prompts/${id}/answer`, '{"answer":"yes"}', json);
    const attempts = [
      '',
      prompt.id.slice(0, 4),
      prompt.id.slice(0, 8),
      prompt.id.slice(0, -1),
      prompt.id.toUpperCase(),
      `${prompt.id}0`,
      `%20${prompt.id}`,
    ];
    for (const id of attempts) {
      const refused = await answer(id);
      expect(refused.status, `${JSON.stringify(id)}: ${refused.body}`).toBe(404);
      expect(world.store.prompts.get(prompt.id)!.status).toBe('awaiting_reply');
    }
    const answered = await answer(prompt.id);
    expect(answered.status, answered.body).toBe(200);
    expect(world.store.prompts.get(prompt.id)!.status).not.toBe('awaiting_reply');
  });

  it("never shows a page the prompt's nonce (what a chat button carries)", async () => {
    const prompt = openPrompt(world.store, SESSION, yesNoPrompt({ key: 'k' }));
    const listed = await world.json<Array<Record<string, unknown>>>('/api/prompts');
    expect(listed.map((p) => p.id)).toEqual([prompt.id]);
    expect(listed[0]).not.toHaveProperty('nonce');
    expect(JSON.stringify(listed)).not.toContain(world.store.prompts.get(prompt.id)!.nonce);
  });

  it('takes no prefix of a session id on any route', async () => {
    const prefixes = ['', SESSION.slice(0, 4), SESSION.slice(0, 8), SESSION.toUpperCase()];
    for (const id of prefixes) {
      for (const [method, route, body] of [
        ['POST', 'stop', '{}'],
        ['POST', 'restart', '{}'],
        ['POST', 'resume', '{}'],
        ['POST', 'name', '{"name":"pwned"}'],
        ['POST', 'message', '{"text":"pwned"}'],
        ['GET', 'files', undefined],
        ['GET', 'file?path=x', undefined],
        ['GET', 'changes', undefined],
        ['GET', 'conversation', undefined],
      ] as const) {
        const exchange = await raw(method, `/api/sessions/${id}/${route}`, body, body ? json : []);
        expect(exchange.status, `${method} ${JSON.stringify(id)} ${route}: ${exchange.body}`).toBe(404);
      }
    }
    expect(world.store.sessions.get(SESSION)!.name).toBeNull();
  });
});

describe("a session's name", () => {
  const rename = (name: string) =>
    raw('POST', `/api/sessions/${SESSION}/name`, JSON.stringify({ name }), json);

  it('refuses C1 controls, bidi overrides and isolates, and line or paragraph separators, naming them', async () => {
    const hostile: Array<[string, string]> = [
      ['\u009b', 'U+009B'],
      ['\u0085', 'U+0085'],
      ['\u202e', 'U+202E'],
      ['\u202a', 'U+202A'],
      ['\u2066', 'U+2066'],
      ['\u2028', 'U+2028'],
      ['\u2029', 'U+2029'],
      ['\n', 'U+000A'],
      ['\r', 'U+000D'],
      ['\t', 'U+0009'],
      ['\u001b', 'U+001B'],
      ['\u007f', 'U+007F'],
      // Invisible: two names that look alike in a list would differ.
      ['\u200b', 'U+200B (zero-width space)'],
      ['\u200e', 'U+200E'],
      ['\u200f', 'U+200F'],
      ['\u061c', 'U+061C'],
      ['\ufeff', 'U+FEFF'],
      ['\u2060', 'U+2060'],
    ];
    for (const [character, named] of hostile) {
      const error = expectError(await rename(`invoice${character}fdp.exe`), 400);
      expect(error, JSON.stringify(character)).toContain(named);
      expect(world.store.sessions.get(SESSION)!.name).toBeNull();
    }
  });

  it('takes any plain text on one line', async () => {
    // Joiners that shape scripts and emoji are text: a family emoji (ZWJ), Persian with a ZWNJ.
    for (const name of [
      'fix the login bug',
      'café ☕ 修正 — שלום',
      'a   b',
      '👨\u200d👩\u200d👧',
      'می\u200cخواهم',
    ]) {
      const exchange = await rename(name);
      expect(exchange.status, exchange.body).toBe(200);
      expect(world.store.sessions.get(SESSION)!.name).toBe(name);
    }
  });
});

describe('what Fastify itself refuses, answered as API.md says (`{ error }`)', () => {
  const target = `/api/sessions/${SESSION}/name`;

  it('malformed JSON', async () => {
    const error = expectError(await raw('POST', target, '{"name": "x"', json), 400);
    expect(error).toMatch(/JSON/);
  });

  it('an empty body sent as JSON', async () => {
    const error = expectError(await raw('POST', target, '', json), 400);
    expect(error).toMatch(/JSON/);
  });

  it('a content type the API does not take', async () => {
    const form = ['Content-Type: application/x-www-form-urlencoded'];
    const error = expectError(await raw('POST', target, 'name=x', form), 415);
    expect(error).toMatch(/application\/json/);
  });

  it('a body too large', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(MAX_BODY_BYTES) });
    const error = expectError(await raw('POST', target, big, json), 413);
    expect(error).toContain(String(MAX_BODY_BYTES));
  });

  it('a Content-Length that is not the body', async () => {
    const exchange = await rawRequest(
      world.port,
      [
        `POST ${target} HTTP/1.1`,
        `Host: ${world.host}`,
        'Connection: close',
        bearer,
        ...json,
        'Content-Length: 5',
      ].join('\r\n'),
      '{"name":"longer than five"}',
    );
    expect(exchange.status).toBeGreaterThanOrEqual(400);
    if (exchange.body) expect(Object.keys(JSON.parse(exchange.body) as object)).toEqual(['error']);
  });

  it('a route that does not exist', async () => {
    expectError(await raw('GET', '/api/no-such-route'), 404);
    expectError(await raw('DELETE', `/api/sessions/${SESSION}`), 404);
  });
});

describe("agent-bridge's own failure", () => {
  it('is a 500 saying only to look at the log, and the log says what failed', async () => {
    // A failure of its own (the disk went away under the store), injected into the listing the route returns.
    vi.spyOn(SessionsWebBackend.prototype, 'sessions').mockImplementationOnce(() => {
      throw new Error('SQLITE_IOERR: disk I/O error in /home/me/.agent-bridge/agent-bridge.db');
    });
    const failed = await raw('GET', '/api/sessions');
    expect(expectError(failed, 500)).toBe(
      'agent-bridge could not answer this request: try again, or see its log',
    );
    expect(failed.body).not.toContain('SQLITE');
    expect(world.logged).toEqual([
      'web: GET /api/sessions failed: SQLITE_IOERR: disk I/O error in /home/me/.agent-bridge/agent-bridge.db',
    ]);
  });
});
