import { createHash } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';

/** The end of a transcript we read: the current turn is near the end, and transcripts grow to megabytes. */
const TAIL_BYTES = 256 * 1024;

/** One line of Claude Code's transcript (JSONL), the fields we read. */
interface TranscriptEntry {
  type?: string;
  isSidechain?: boolean;
  isMeta?: boolean;
  message?: { id?: string; role?: string; content?: unknown; usage?: Record<string, unknown> };
}

/**
 * How long a PreToolUse waits for Claude to write the tool call to its transcript (it flushes every ~100 ms,
 * later on a loaded machine; the tool waits for the hook, so this only delays a tool whose note is late).
 */
const TRANSCRIPT_WAIT_MS = 5_000;

/**
 * What the agent said before the tool it is about to run, from its transcript (`transcript_path` and
 * `tool_use_id` of a PreToolUse hook). Claude writes its transcript a little later than it runs hooks: this
 * waits (at most `timeoutMs`) until the tool call is in it, so the text is this step's, not an older one.
 * Null when the agent said nothing since the person's last message, or the transcript did not catch up.
 */
export async function assistantTextBeforeTool(
  file: string,
  toolUseId: string | undefined,
  timeoutMs = TRANSCRIPT_WAIT_MS,
): Promise<string | null> {
  const lines = await tailWhen(
    file,
    (tail) => !toolUseId || tail.some((line) => line.includes(toolUseId)),
    timeoutMs,
  );
  return lines.ready ? latestTextOfTurn(lines.tail) : null;
}

/**
 * What the agent said before the tool a permission request is for, from its transcript as it is now (no
 * wait: the request comes after its PreToolUse, by which time the call is written). The request names no
 * `tool_use_id`: the call is the latest `tool_use` of that tool whose input the request's holds. A second
 * chance for a note whose PreToolUse post never arrived or read the transcript before it caught up
 * (ProgressNotes keeps a text from being posted twice). Null when the call is not in the transcript.
 */
export async function assistantTextBeforeRequestedTool(
  file: string,
  toolName: string,
  toolInput: unknown,
): Promise<string | null> {
  const tail = (await readTail(file)) ?? [];
  let last = tail.length - 1;
  while (last >= 0 && !(tail[last]!.includes(toolName) && isCallOf(parse(tail[last]!), toolName, toolInput)))
    last--;
  return last < 0 ? null : latestTextOfTurn(tail.slice(0, last + 1));
}

/** An entry with a call of `toolName` whose input `requested` holds (Claude may add defaults to it). */
function isCallOf(entry: TranscriptEntry | null, toolName: string, requested: unknown): boolean {
  const content = entry?.type === 'assistant' && !entry.isSidechain ? entry.message?.content : undefined;
  if (!Array.isArray(content)) return false;
  return content.some((block) => {
    const call = block as { type?: unknown; name?: unknown; input?: unknown };
    return call.type === 'tool_use' && call.name === toolName && holds(requested, call.input);
  });
}

function holds(requested: unknown, input: unknown): boolean {
  if (!input || typeof input !== 'object' || !requested || typeof requested !== 'object') return false;
  return Object.entries(input).every(([key, value]) =>
    isDeepStrictEqual((requested as Record<string, unknown>)[key], value),
  );
}

/**
 * The transcript's tail once `ready` holds for it, re-read each time its folder changes (no polling), or
 * at the deadline whatever it holds (`ready: false`; `tail` empty when it cannot be read).
 */
async function tailWhen(
  file: string,
  ready: (tail: string[]) => boolean,
  timeoutMs: number,
): Promise<{ ready: boolean; tail: string[] }> {
  let changed: () => void = () => {};
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(path.dirname(file), () => changed());
    watcher.on('error', () => changed());
  } catch {
    // An unwatchable folder: read once now and once at the deadline.
  }
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      const wake = new Promise<void>((resolve) => (changed = resolve));
      const tail = await readTail(file);
      if (tail && ready(tail)) return { ready: true, tail };
      const left = deadline - Date.now();
      if (left <= 0) return { ready: false, tail: tail ?? [] };
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([wake, new Promise<void>((resolve) => (timer = setTimeout(resolve, left)))]);
      clearTimeout(timer);
    }
  } finally {
    watcher?.close();
  }
}

/** The transcript's last lines (whole lines only), or null when it cannot be read (yet). */
async function readTail(file: string): Promise<string[] | null> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch {
    return null;
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - TAIL_BYTES);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    const lines = buffer.toString('utf8').split('\n');
    return start > 0 ? lines.slice(1) : lines;
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

/**
 * How many tokens the context held at the agent's last answer (its API usage: input, cache reads and writes,
 * output), from the transcript of a Stop hook. Waits (at most `timeoutMs`) until the answer's words
 * (`lastMessage`) are in the transcript, so the count is this answer's, not the one before. Null when unknown.
 */
export async function contextTokensAtAnswer(
  file: string,
  lastMessage: string | undefined,
  timeoutMs = ANSWER_WAIT_MS,
): Promise<number | null> {
  const needle = lastMessage ? JSON.stringify(lastMessage.trim().slice(0, 60)).slice(1, -1) : null;
  const { tail } = await tailWhen(
    file,
    (lines) => !needle || lines.some((line) => line.includes(needle)),
    timeoutMs,
  );
  return lastUsageTokens(tail);
}

/** Waiting longer for the Stop's answer would hold its message back from chat. */
const ANSWER_WAIT_MS = 300;

export function lastUsageTokens(lines: string[]): number | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const entry = parse(lines[i]!);
    const usage = entry?.type === 'assistant' && !entry.isSidechain ? entry.message?.usage : undefined;
    if (!usage) continue;
    const count = (key: string) => (typeof usage[key] === 'number' ? (usage[key] as number) : 0);
    return (
      count('input_tokens') +
      count('cache_creation_input_tokens') +
      count('cache_read_input_tokens') +
      count('output_tokens')
    );
  }
  return null;
}

/**
 * Walks back from the end: the last assistant entry with text, joined with the other text blocks of the same
 * API message (Claude Code writes one entry per content block). Stops at the person's last message.
 */
export function latestTextOfTurn(lines: string[]): string | null {
  let messageId: string | undefined;
  const texts: string[] = [];
  for (let i = lines.length - 1; i >= 0; i--) {
    const entry = parse(lines[i]!);
    if (!entry || entry.isSidechain) continue;
    if (entry.type === 'user') {
      if (texts.length > 0 || isPersonsMessage(entry)) break;
      continue;
    }
    if (entry.type !== 'assistant') continue;
    if (texts.length > 0 && entry.message?.id !== messageId) break;
    const text = textOf(entry.message?.content);
    if (!text) continue;
    messageId = entry.message?.id;
    texts.unshift(text);
  }
  const joined = texts.join('\n\n').trim();
  return joined === '' ? null : joined;
}

function parse(line: string): TranscriptEntry | null {
  if (!line.trim()) return null;
  try {
    const value = JSON.parse(line) as unknown;
    return value && typeof value === 'object' ? (value as TranscriptEntry) : null;
  } catch {
    return null;
  }
}

/** A user entry that the person typed, as opposed to a tool's result or Claude's own meta notes. */
function isPersonsMessage(entry: TranscriptEntry): boolean {
  if (entry.isMeta) return false;
  const content = entry.message?.content;
  if (typeof content === 'string') return true;
  return Array.isArray(content) && content.some((block) => blockType(block) !== 'tool_result');
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content.trim();
  if (!Array.isArray(content)) return '';
  return content
    .filter((block) => blockType(block) === 'text')
    .map((block) => String((block as { text?: unknown }).text ?? ''))
    .join('\n')
    .trim();
}

const blockType = (block: unknown): unknown =>
  block && typeof block === 'object' ? (block as { type?: unknown }).type : undefined;

/**
 * Progress notes of one session (seed 001): each distinct text is posted once, as `🔄 <text>`.
 */
export class ProgressNotes {
  private readonly posted = new Set<string>();

  /** The note to post for this text, or null when the same text was posted before. */
  take(text: string): string | null {
    const trimmed = text.trim();
    if (!trimmed) return null;
    const key = createHash('sha256').update(trimmed).digest('hex');
    if (this.posted.has(key)) return null;
    this.posted.add(key);
    return `🔄 ${trimmed}`;
  }
}
