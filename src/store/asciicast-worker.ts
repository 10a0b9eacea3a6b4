import { closeSync, openSync, writeSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { parentPort } from 'node:worker_threads';
import type { RecorderReply, RecorderRequest } from './asciicast-writer.js';

/**
 * The recordings' thread: decodes output bytes as UTF-8 (as a stream, so a character split across batches is
 * kept), JSON-escapes them and writes asciicast lines, off the thread that relays the terminal. One thread
 * serves every recording of the process; each request names its recording.
 */
interface Recording {
  fd: number;
  decoder: StringDecoder;
}

const recordings = new Map<number, Recording>();
const port = parentPort!;

function reply(message: RecorderReply): void {
  port.postMessage(message);
}

function line(seconds: number, code: 'o' | 'r', data: string): string {
  return `[${seconds.toFixed(6)}, "${code}", ${JSON.stringify(data)}]\n`;
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
    recordings.set(request.id, { fd, decoder: new StringDecoder('utf8') });
    writeSync(fd, request.header);
    return;
  }
  const recording = recordings.get(request.id);
  if (request.op === 'close') {
    if (recording) {
      recordings.delete(request.id);
      const rest = recording.decoder.end();
      try {
        if (rest) writeSync(recording.fd, line(request.seconds, 'o', rest));
      } finally {
        closeSync(recording.fd);
      }
    }
    reply({ op: 'closed', id: request.id });
    return;
  }
  if (!recording) return; // it failed before: said once already
  let text = '';
  for (const event of request.events) {
    const data = typeof event.data === 'string' ? event.data : recording.decoder.write(event.data);
    if (data) text += line(event.seconds, event.code, data);
  }
  if (text) writeSync(recording.fd, text);
}

port.on('message', (request: RecorderRequest) => {
  try {
    handle(request);
  } catch (error) {
    fail(request.id, error);
    if (request.op === 'close') reply({ op: 'closed', id: request.id });
  }
});
