import { closeSync, openSync, writeSync, writevSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { JsonOutputEncoder } from './asciicast-encoding.js';
import type { RecorderReply, RecorderRequest } from './asciicast-writer.js';

/**
 * The recordings' thread: turns output bytes into asciicast lines (UTF-8 as a stream, so a character split
 * across batches is kept; JSON-escaped) and writes them, off the thread that relays the terminal. One thread
 * serves every recording of the process; each request names its recording.
 */
interface Recording {
  fd: number;
  encoder: JsonOutputEncoder;
}

const QUOTE_END = Buffer.from('"]\n');

const recordings = new Map<number, Recording>();
const port = parentPort!;

function reply(message: RecorderReply): void {
  port.postMessage(message);
}

function line(seconds: number, code: 'o' | 'r', data: string): string {
  return `[${seconds.toFixed(6)}, "${code}", ${JSON.stringify(data)}]\n`;
}

/** An output event's line as buffers: its JSON string body is already escaped bytes. */
function outputLine(seconds: number, body: Buffer): Buffer[] {
  return [Buffer.from(`[${seconds.toFixed(6)}, "o", "`), body, QUOTE_END];
}

function fail(id: number, error: unknown): void {
  const recording = recordings.get(id);
  recordings.delete(id);
  if (recording) closeQuietly(recording.fd);
  const { message, code } = error as { message?: string; code?: string };
  reply({ op: 'failed', id, message: message ?? String(error), ...(code ? { code } : {}) });
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already failed: the error that matters was reported
  }
}

function handle(request: RecorderRequest): void {
  if (request.op === 'open') {
    const fd = openSync(request.file, 'wx', 0o600);
    recordings.set(request.id, { fd, encoder: new JsonOutputEncoder() });
    writeSync(fd, request.header);
    return;
  }
  const recording = recordings.get(request.id);
  if (request.op === 'close') {
    if (recording) {
      recordings.delete(request.id);
      const rest = recording.encoder.end();
      try {
        if (rest.length) writevSync(recording.fd, outputLine(request.seconds, rest));
      } finally {
        closeSync(recording.fd);
      }
    }
    reply({ op: 'closed', id: request.id });
    return;
  }
  if (!recording) return; // it failed before: said once already
  const lines: Buffer[] = [];
  for (const event of request.events) {
    if (typeof event.data === 'string') lines.push(Buffer.from(line(event.seconds, event.code, event.data)));
    else {
      const body = recording.encoder.write(event.data);
      if (body.length) lines.push(...outputLine(event.seconds, body));
    }
  }
  if (lines.length) writevSync(recording.fd, lines);
}

port.on('message', (request: RecorderRequest) => {
  try {
    handle(request);
  } catch (error) {
    fail(request.id, error);
    if (request.op === 'close') reply({ op: 'closed', id: request.id });
  }
});
