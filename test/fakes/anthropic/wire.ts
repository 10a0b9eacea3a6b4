// Encodes a Reply in the Messages API wire formats: SSE events or a single JSON message.
import { randomBytes } from 'node:crypto';
import type { Reply, ReplyBlock } from './types.js';

/** One server-sent event as the real API sends it: `event: <type>` + `data: <json>`. */
export interface SseEvent {
  type: string;
  data: Record<string, unknown>;
}

type WireBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'thinking'; thinking: string; signature: string };

const TEXT_CHUNK = 16;
const JSON_CHUNK = 24;

export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

export function stopReasonOf(reply: Reply): string {
  if (reply.stopReason) return reply.stopReason;
  return reply.content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
}

function toWireBlock(block: ReplyBlock): WireBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'tool_use':
      return { type: 'tool_use', id: block.id ?? newId('toolu'), name: block.name, input: block.input };
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: block.signature ?? newId('sig') };
  }
}

function chunk(text: string, size: number): string[] {
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts;
}

/** A rough token count: the API only needs plausible numbers here. */
export function estimateTokens(value: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(value ?? '').length / 4));
}

function usage(inputTokens: number, outputTokens: number): Record<string, number> {
  return {
    input_tokens: inputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: outputTokens,
  };
}

/** Non-streaming answer: the complete message object. */
export function toMessageJson(reply: Reply, model: string, inputTokens: number): Record<string, unknown> {
  const content = reply.content.map(toWireBlock);
  return {
    id: newId('msg'),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReasonOf(reply),
    stop_sequence: null,
    usage: usage(inputTokens, estimateTokens(content)),
  };
}

/** Events for one content block: start with an empty shell, deltas, stop. */
function blockEvents(block: WireBlock, index: number): SseEvent[] {
  const start = (content_block: Record<string, unknown>): SseEvent => ({
    type: 'content_block_start',
    data: { type: 'content_block_start', index, content_block },
  });
  const delta = (payload: Record<string, unknown>): SseEvent => ({
    type: 'content_block_delta',
    data: { type: 'content_block_delta', index, delta: payload },
  });
  const events: SseEvent[] = [];
  if (block.type === 'text') {
    events.push(start({ type: 'text', text: '' }));
    for (const text of chunk(block.text, TEXT_CHUNK)) events.push(delta({ type: 'text_delta', text }));
  } else if (block.type === 'tool_use') {
    events.push(start({ type: 'tool_use', id: block.id, name: block.name, input: {} }));
    for (const partial_json of chunk(JSON.stringify(block.input), JSON_CHUNK)) {
      events.push(delta({ type: 'input_json_delta', partial_json }));
    }
  } else {
    events.push(start({ type: 'thinking', thinking: '', signature: '' }));
    for (const thinking of chunk(block.thinking, TEXT_CHUNK)) {
      events.push(delta({ type: 'thinking_delta', thinking }));
    }
    events.push(delta({ type: 'signature_delta', signature: block.signature }));
  }
  events.push({ type: 'content_block_stop', data: { type: 'content_block_stop', index } });
  return events;
}

/** The full event sequence of a streamed message, in the order the real API sends it. */
export function toSseEvents(reply: Reply, model: string, inputTokens: number): SseEvent[] {
  const message = toMessageJson(reply, model, inputTokens);
  const blocks = reply.content.map(toWireBlock);
  const events: SseEvent[] = [
    {
      type: 'message_start',
      data: {
        type: 'message_start',
        message: { ...message, content: [], stop_reason: null, usage: usage(inputTokens, 1) },
      },
    },
    { type: 'ping', data: { type: 'ping' } },
  ];
  blocks.forEach((block, index) => events.push(...blockEvents(block, index)));
  events.push(
    {
      type: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: message.stop_reason, stop_sequence: null },
        usage: { output_tokens: estimateTokens(blocks) },
      },
    },
    { type: 'message_stop', data: { type: 'message_stop' } },
  );
  return events;
}

export function formatSse(event: SseEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/** Parses an SSE stream body back into events (for tests and debugging). */
export function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      const type = /^event: (.*)$/m.exec(frame)?.[1] ?? '';
      const data = /^data: (.*)$/m.exec(frame)?.[1] ?? '{}';
      return { type, data: JSON.parse(data) as Record<string, unknown> };
    });
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

export function errorBody(status: number, errorType?: string, message?: string): Record<string, unknown> {
  const type = errorType ?? ERROR_TYPES[status] ?? 'api_error';
  return { type: 'error', error: { type, message: message ?? `fake ${type}` } };
}
