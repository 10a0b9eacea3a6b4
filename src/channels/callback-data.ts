/**
 * Button data for a prompt answer: `ans:<prompt8>:<session8>:<nonce16>:<value>` (seed 004 §7.2), at most 64
 * bytes (Telegram's limit; Discord and Slack allow more). The value says what was pressed.
 */
export const CALLBACK_MAX_BYTES = 64;

/** Button values and the answer each stands for (as `agent-bridge approvals answer` would take it). */
export const BUTTON_VALUES = {
  y: 'yes',
  n: 'no',
  s: 'session',
  e: 'enter',
  d: 'default',
  c: 'cancel',
  x: 'esc',
} as const;

/** `m`: show more output; `o`: "Other…", the person types the answer (a reason, their own option). */
export type ButtonValue = keyof typeof BUTTON_VALUES | `${number}` | 'm' | 'o';

export interface PromptButton {
  promptPrefix: string;
  sessionPrefix: string;
  noncePrefix: string;
  /** A key of BUTTON_VALUES, a choice number, `m` (show more output) or `o` (type an answer). */
  value: string;
}

const PATTERN = /^ans:([0-9a-f]{8}):([0-9a-f]{8}):([0-9a-f]{16}):([a-z]|\d{1,2})$/;

export function encodeButton(promptId: string, sessionId: string, nonce: string, value: ButtonValue): string {
  const data = `ans:${hex8(promptId)}:${hex8(sessionId)}:${nonce.slice(0, 16)}:${value}`;
  if (Buffer.byteLength(data) > CALLBACK_MAX_BYTES) throw new Error(`button data too long: ${data}`);
  return data;
}

/** Null for anything that is not exactly our format: never guess with data someone else sent. */
export function decodeButton(data: string): PromptButton | null {
  const match = PATTERN.exec(data);
  if (!match) return null;
  return { promptPrefix: match[1]!, sessionPrefix: match[2]!, noncePrefix: match[3]!, value: match[4]! };
}

/** What a button value means as an answer; null for `m`, `o` and unknown letters. */
export function answerForButton(value: string): string | null {
  if (/^\d{1,2}$/.test(value)) return value;
  return Object.hasOwn(BUTTON_VALUES, value) ? BUTTON_VALUES[value as keyof typeof BUTTON_VALUES] : null;
}

function hex8(uuid: string): string {
  return uuid.replace(/-/g, '').slice(0, 8);
}
