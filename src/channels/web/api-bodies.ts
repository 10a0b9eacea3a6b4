import { z } from 'zod';
import { refusedCharacter, textProblem } from '../../core/answer-text.js';
import { MACHINE_NAME } from '../../core/machine-name.js';

/** The JSON bodies the web API takes (API.md), checked whole: an unknown key or a wrong type is a 400. */

const MAX_ANSWER_CHARS = 10_000;
const MAX_PATH_CHARS = 4_096;
const MAX_ARGS = 100;
/** An error says what to fix, not the whole of what was sent. */
const MAX_WHY_CHARS = 200;

/** Text that goes to a file system call or a process: a NUL cannot be said there, only cut at. */
const argument = (min: number, max: number) =>
  z
    .string()
    .min(min)
    .max(max)
    .refine((text) => !text.includes('\0'), 'must not contain a NUL character');

const startSession = z.strictObject({
  agent: argument(1, 64),
  cwd: argument(1, MAX_PATH_CHARS),
  args: z.array(argument(0, MAX_PATH_CHARS)).max(MAX_ARGS).optional(),
  /** A machine of the cluster (a node's name). */
  node: z.string().regex(MACHINE_NAME, 'a node name').optional(),
});

const answerPrompt = z.strictObject({ answer: z.string().max(MAX_ANSWER_CHARS) });

const MAX_NAME_CHARS = 80;
/** What ends a line, besides what textProblem() refuses anywhere (tab included: a name is one line). */
const LINE_BREAK = /[\t\n\r\u2028\u2029]/;
/**
 * Characters that show nothing (zero-width space, direction marks, word joiners, the byte-order mark): two names
 * would look alike in a list and differ. The joiners that shape scripts and emoji (U+200C, U+200D) stay.
 */
const INVISIBLE = /[\u061c\u180e\u200b\u200e\u200f\u2060-\u2064\ufeff]/;
const CHARACTER_NAMES: Record<string, string> = {
  '\t': 'tab',
  '\n': 'line feed',
  '\r': 'carriage return',
  '\u0085': 'next line',
  '\u2028': 'line separator',
  '\u2029': 'paragraph separator',
  '\u202a': 'left-to-right embedding',
  '\u202b': 'right-to-left embedding',
  '\u202c': 'pop directional formatting',
  '\u202d': 'left-to-right override',
  '\u202e': 'right-to-left override',
  '\u2066': 'left-to-right isolate',
  '\u2067': 'right-to-left isolate',
  '\u2068': 'first strong isolate',
  '\u2069': 'pop directional isolate',
  '\u061c': 'Arabic letter mark',
  '\u180e': 'Mongolian vowel separator',
  '\u200b': 'zero-width space',
  '\u200e': 'left-to-right mark',
  '\u200f': 'right-to-left mark',
  '\u2060': 'word joiner',
  '\ufeff': 'zero-width no-break space',
};

/** `U+202E (right-to-left override)`: the character, said so that a person can find it. */
function characterName(character: string): string {
  const code = `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  const name = CHARACTER_NAMES[character];
  return name ? `${code} (${name})` : code;
}

/**
 * Why `name` cannot name a session, or null: one line (no line or paragraph separator, no tab), and text as
 * answers and messages are (textProblem: no C0 or C1 control, DEL, bidi override or isolate), and nothing
 * invisible (INVISIBLE); the character refused is named.
 */
function nameProblem(name: string): string | null {
  const lineBreak = LINE_BREAK.exec(name);
  if (lineBreak) return `must be one line: remove the ${characterName(lineBreak[0])}`;
  const refused = refusedCharacter(name) ?? INVISIBLE.exec(name)?.[0] ?? null;
  return refused === null ? null : `must be plain text: remove the ${characterName(refused)}`;
}

/** A session's name: one line of text for lists (null or empty: back to its first prompt). */
const nameSession = z.strictObject({
  name: z
    .string()
    .max(MAX_NAME_CHARS)
    .superRefine((text, context) => {
      const problem = nameProblem(text);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    })
    .nullable(),
});

const MAX_MESSAGE_CHARS = 10_000;
/** A person's message for an agent: text (line breaks and tabs; no control or bidi-override characters). */
const sendMessage = z.strictObject({
  text: z
    .string()
    .max(MAX_MESSAGE_CHARS)
    .refine((text) => text.trim() !== '', 'must not be empty')
    .superRefine((text, context) => {
      const problem = textProblem(text);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    }),
});

export type StartSessionBody = z.infer<typeof startSession>;
export type AnswerBody = z.infer<typeof answerPrompt>;
export type NameBody = z.infer<typeof nameSession>;
export type MessageBody = z.infer<typeof sendMessage>;

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

export function parseStartSession(body: unknown): Parsed<StartSessionBody> {
  return parse(startSession, body, 'send { agent, cwd, args?, node? } (args: a list of strings)');
}

export function parseAnswer(body: unknown): Parsed<AnswerBody> {
  return parse(answerPrompt, body, `send { answer: "..." } (at most ${MAX_ANSWER_CHARS} characters)`);
}

export function parseName(body: unknown): Parsed<NameBody> {
  return parse(
    nameSession,
    body,
    `send { name: "..." } (one line, at most ${MAX_NAME_CHARS} characters; null clears it)`,
  );
}

export function parseMessage(body: unknown): Parsed<MessageBody> {
  return parse(sendMessage, body, `send { text: "..." } (at most ${MAX_MESSAGE_CHARS} characters)`);
}

function parse<T>(schema: z.ZodType<T>, body: unknown, usage: string): Parsed<T> {
  const result = schema.safeParse(body);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  const why = `${where}${issue?.message ?? 'not that shape'}`;
  return {
    ok: false,
    error: `${usage}: ${why.length > MAX_WHY_CHARS ? `${why.slice(0, MAX_WHY_CHARS)}…` : why}`,
  };
}
