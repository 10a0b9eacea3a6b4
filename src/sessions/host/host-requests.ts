import * as z from 'zod/mini';
import {
  CLIENT_KINDS,
  MAX_TERMINAL_SIZE,
  OLDEST_PROTOCOL,
  parseJson,
  PROTOCOL,
  type HostFrame,
  type HostLaunch,
} from './host-wire.js';

/**
 * What a session host takes from its clients (host-wire.ts), checked whole before anything of it is acted on:
 * the hello, then each request. Only the host loads this: a client sends these, it never reads them. Written
 * with zod's tree-shakable API (zod/mini): the host loads ~50 KB of it rather than all of zod (750 KB), which
 * was half of what a session host's process loads before it can start its agent.
 */
const MAX_PARTS = 64;
const MAX_PART_CHARS = 256 * 1024;
const MAX_ID_CHARS = 128;
const MAX_HOOK_BODY_CHARS = 1024 * 1024;

const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.number().check(z.int(), z.minimum(min), z.maximum(max));
const chars = (min: number, max: number) => z.string().check(z.minLength(min), z.maxLength(max));
const size = int(1, MAX_TERMINAL_SIZE);
const request = int(0);
const id = chars(1, MAX_ID_CHARS);

const hello = z.object({
  type: z.literal('hello'),
  protocol: int(0),
  secret: chars(1, 256),
  client: z.enum(CLIENT_KINDS),
  /** Become the session's controller (prompts, answers, the store) if no one is. */
  control: z._default(z.enum(['no', 'if-free', 'wait']), 'no'),
  /** The size that fits this client, and whether it may set the terminal's (a person's terminal does). */
  size: z.optional(z.object({ cols: size, rows: size })),
  drives: z._default(z.boolean(), false),
  /** Output frames wanted (a client waiting for control wants none until it has it). */
  output: z._default(z.boolean(), true),
  /** The controller read the finished lines up to this number: the ones after it come again. */
  linesAfter: z.optional(int(0)),
  /**
   * Protocol 2: this client reads the screen the host keeps (`settled` and `active` frames, the `screen`
   * request) instead of parsing the output itself; a controller that does gets output only if it asks.
   */
  screens: z._default(z.boolean(), false),
  /**
   * Protocol 2: this client's terminal is the one its host was started with (the spawner's, on fd 4): the
   * host writes the output there itself, once the client says so (`terminal`), instead of over this socket.
   */
  direct: z._default(z.boolean(), false),
  /** Only watch (a browser's `?watch=1`): this client's keys, sizes and Stop are refused here, whatever it sends. */
  watch: z._default(z.boolean(), false),
});

const clientRequests = z.discriminatedUnion('type', [
  z.object({ type: z.literal('resize'), cols: size, rows: size }),
  z.object({ type: z.literal('drive') }),
  z.object({
    type: z.literal('inject'),
    req: request,
    parts: z.array(chars(0, MAX_PART_CHARS)).check(z.maxLength(MAX_PARTS)),
    gapMs: int(0, 10_000),
    settleBeforeLast: z.optional(z.boolean()),
    awaitRedraw: z.optional(z.boolean()),
    ifOutputAt: z.optional(int(0)),
    once: z.optional(id),
  }),
  z.object({ type: z.literal('injected'), req: request, id }),
  z.object({ type: z.literal('interrupt'), signal: z.enum(['SIGINT', 'SIGQUIT', 'SIGTSTP']) }),
  z.object({ type: z.literal('stop'), req: request }),
  z.object({ type: z.literal('redraw'), req: request }),
  /** The screen, caught up with all output read so far (protocol 2). */
  z.object({ type: z.literal('screen'), req: request }),
  /**
   * Output over this socket on or off (protocol 2): switched on, the reply carries the screen the output
   * after it continues from.
   */
  z.object({ type: z.literal('output'), req: request, on: z.boolean() }),
  /**
   * The spawner's terminal (protocol 2, a `direct` client): on, the host starts writing the output there; off,
   * it stops (the terminal detaches) and replies once everything before is written.
   */
  z.object({ type: z.literal('terminal'), req: request, on: z.boolean() }),
  z.object({ type: z.literal('release') }),
  /** The controller asks again for the finished lines after this number (it read the rest). */
  z.object({ type: z.literal('lines'), after: int(0) }),
  z.object({ type: z.literal('done') }),
  z.object({
    type: z.literal('hookReply'),
    id: int(1),
    status: int(200, 599),
    body: chars(0, MAX_HOOK_BODY_CHARS),
    /** The prompt this answers: the host remembers it went out (`injected` says so to a later controller). */
    once: z.optional(id),
  }),
]);

export type Hello = z.infer<typeof hello>;
export type ClientRequest = z.infer<typeof clientRequests>;

/** The first message, or null when it is not a hello (the connection is then refused). */
export function parseHello(text: string): Hello | null {
  const parsed = hello.safeParse(parseJson(text));
  return parsed.success ? parsed.data : null;
}

/** A later message, or null: malformed, or a type this host does not know (ignored, for newer clients). */
export function parseRequest(text: string): ClientRequest | null {
  const parsed = clientRequests.safeParse(parseJson(text));
  return parsed.success ? parsed.data : null;
}

/** Why the host turns a client away after its hello (its protocol is too old, the web may not see this). */
export function refusalOf(hello: Hello, launch: HostLaunch): Extract<HostFrame, { type: 'refused' }> | null {
  if (hello.protocol < OLDEST_PROTOCOL)
    return {
      type: 'refused',
      code: 'protocol',
      reason: `this session host (agent-bridge ${launch.version}) speaks protocol ${OLDEST_PROTOCOL}–${PROTOCOL}, the client ${hello.protocol}: use agent-bridge ${launch.version} or newer`,
    };
  if (hello.client === 'web' && !launch.session.webView)
    return {
      type: 'refused',
      code: 'policy',
      reason: 'this session is not shown on the web (--no-web-view)',
    };
  return null;
}
