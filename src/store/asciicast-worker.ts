import { closeSync, openSync, writevSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { JsonOutputEncoder } from './asciicast-encoding.js';
import type {
  ParkedRecording,
  RecorderReply,
  RecorderRequest,
  RecorderThreadData,
} from './asciicast-writer.js';
import {
  RECORD_CLOSE,
  RECORD_OPEN,
  RECORD_OUTPUT,
  RECORD_RESIZE,
  RingReader,
  type RingRecord,
} from './recording-ring.js';

/**
 * The recordings' thread: turns output bytes into asciicast lines (UTF-8 as a stream, so a character split
 * across batches is kept; JSON-escaped) and writes them, off the thread that relays the terminal. One thread
 * serves every recording of the process; it reads their records from the ring the relaying thread fills
 * (recording-ring.ts), in order, and writes what a wake-up brought in one call per file. Asked to park (the
 * terminals were quiet a while), it writes everything and hands its recordings back (their files stay open)
 * for the next thread to go on with.
 */
interface Recording {
  fd: number;
  encoder: JsonOutputEncoder;
  /** Lines not written yet: may be views of the ring, so written before its space is given back. */
  lines: Uint8Array[];
  /** The time of the last event written (seconds into the recording). */
  lastSeconds: number;
}

const QUOTE_END = Buffer.from('"]\n');
/** A close this long after the last event is marked with an end event (within it, the length is right). */
const END_AFTER_SECONDS = 0.001;

const recordings = new Map<number, Recording>();
const port = parentPort!;
const data = workerData as RecorderThreadData;
const ring = new RingReader(data.ring);
/** Parked: nothing more is read (the next thread reads on from where this one stopped). */
let parked = false;

for (const { id, fd, held, lastSeconds } of data.recordings)
  recordings.set(id, { fd, encoder: new JsonOutputEncoder(held), lines: [], lastSeconds });

function reply(message: RecorderReply): void {
  port.postMessage(message);
}

function text(data: Uint8Array[]): string {
  return Buffer.concat(data).toString('utf8');
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

/** An output event's line: its JSON string body is already escaped bytes (one piece per part of the ring). */
function addOutput(recording: Recording, seconds: number, body: Uint8Array[]): void {
  const pieces = body.filter((piece) => piece.length > 0);
  if (pieces.length) addEvent(recording, seconds, 'o', pieces);
}

function addEvent(recording: Recording, seconds: number, code: 'o' | 'r', pieces: Uint8Array[]): void {
  recording.lines.push(Buffer.from(`[${seconds.toFixed(6)}, "${code}", "`), ...pieces, QUOTE_END);
  recording.lastSeconds = Math.max(recording.lastSeconds, seconds);
}

/**
 * asciicast v2 has no end event: a player (and `recordings`) takes the last event's time for the length, so a
 * session quiet for its last minutes would look minutes shorter than it ran. An empty output event at the
 * close keeps its true length and shows nothing.
 */
function addEnd(recording: Recording, seconds: number): void {
  const rest = recording.encoder.end();
  if (rest.length > 0 || seconds - recording.lastSeconds >= END_AFTER_SECONDS)
    addEvent(recording, seconds, 'o', rest);
}

function writeLines(recording: Recording): void {
  if (recording.lines.length) writeAll(recording.fd, recording.lines);
  recording.lines = [];
}

/**
 * All of `pieces`, however many calls it takes: a write may take only part (a disk that fills up midway
 * writes what fits and says so only when asked for the rest, with ENOSPC).
 */
function writeAll(fd: number, pieces: Uint8Array[]): void {
  let left = pieces.filter((piece) => piece.byteLength > 0);
  while (left.length > 0) {
    let written = writevSync(fd, left);
    if (written === 0) throw new Error('the disk took no byte of a write');
    let first = 0;
    while (first < left.length && written >= left[first]!.byteLength) written -= left[first++]!.byteLength;
    left = left.slice(first);
    if (written > 0) left[0] = left[0]!.subarray(written);
  }
}

function handle(record: RingRecord): void {
  const { kind, id, seconds, data } = record;
  if (kind === RECORD_OPEN) {
    const { file, header } = JSON.parse(text(data)) as { file: string; header: string };
    const fd = openSync(file, 'wx', 0o600);
    recordings.set(id, {
      fd,
      encoder: new JsonOutputEncoder(),
      lines: [Buffer.from(header)],
      lastSeconds: 0,
    });
    return;
  }
  const recording = recordings.get(id);
  if (kind === RECORD_CLOSE) {
    if (recording) {
      recordings.delete(id);
      addEnd(recording, seconds);
      try {
        writeLines(recording);
      } finally {
        closeSync(recording.fd);
      }
    }
    reply({ op: 'closed', id });
    return;
  }
  if (!recording) return; // it failed before: said once already
  if (kind === RECORD_OUTPUT)
    addOutput(
      recording,
      seconds,
      data.flatMap((part) => recording.encoder.write(part)),
    );
  else if (kind === RECORD_RESIZE)
    addEvent(recording, seconds, 'r', [Buffer.from(JSON.stringify(text(data)).slice(1, -1))]);
}

function guarded(id: number, kind: number, work: () => void): void {
  try {
    work();
  } catch (error) {
    fail(id, error);
    if (kind === RECORD_CLOSE) reply({ op: 'closed', id });
  }
}

/** Everything published so far: handled, written, and its space given back. */
function drain(): void {
  for (const record of ring.read()) guarded(record.id, record.kind, () => handle(record));
  for (const [id, recording] of recordings) guarded(id, 0, () => writeLines(recording));
  if (ring.release()) reply({ op: 'room' });
}

async function serve(): Promise<void> {
  while (!parked) {
    drain();
    await ring.next();
  }
}

/** Everything published is written; the recordings go back, files open, and this thread reads no more. */
function park(): void {
  drain();
  parked = true;
  const handed: ParkedRecording[] = [...recordings].map(([id, recording]) => ({
    id,
    fd: recording.fd,
    held: recording.encoder.held,
    lastSeconds: recording.lastSeconds,
  }));
  reply({ op: 'parked', recordings: handed });
}

// The port keeps this thread alive (a pending Atomics.waitAsync does not).
port.on('message', (request: RecorderRequest) => {
  if (request.op === 'park' && !parked) park();
});
void serve();
