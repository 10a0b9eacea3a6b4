/**
 * A ring of shared memory from the threads that relay terminals to the recordings' thread: output is copied
 * in once, as it is read, and the other thread is woken once per batch, where a message per batch cost the
 * relaying thread a fresh buffer (zeroed, page-faulted) and a message's serialisation. One thread writes, one
 * reads; records are never split or changed once published.
 *
 * A record: a 32-byte header at a 32-byte boundary (kind, recording id, data length, seconds), then its data,
 * which may wrap around the end. Positions count bytes modulo 2^32; the ring's size is a power of two.
 * What does not fit waits, in order, on the writing side until the reader says there is room.
 */

export const RECORD_OUTPUT = 1;
export const RECORD_RESIZE = 2;
export const RECORD_OPEN = 3;
export const RECORD_CLOSE = 4;

const HEADER_BYTES = 32;
const CONTROL_BYTES = 64;
/** Slots of the control area (Int32). */
const WRITTEN = 0;
const READ = 1;
const READER_WAITING = 2;
const WANTS_ROOM = 3;

/** Eight batches of output (a resident cost once output has gone round it once: memory per session host). */
export const DEFAULT_RING_BYTES = 2 * 1024 * 1024;

export function createRing(ringBytes = DEFAULT_RING_BYTES): SharedArrayBuffer {
  if (ringBytes < 1024 || (ringBytes & (ringBytes - 1)) !== 0)
    throw new Error(`a recording ring's size must be a power of two of at least 1024 bytes: ${ringBytes}`);
  return new SharedArrayBuffer(CONTROL_BYTES + ringBytes);
}

interface RingViews {
  control: Int32Array;
  data: Uint8Array;
  ints: Int32Array;
  floats: Float64Array;
  mask: number;
}

function views(ring: SharedArrayBuffer): RingViews {
  const size = ring.byteLength - CONTROL_BYTES;
  return {
    control: new Int32Array(ring, 0, CONTROL_BYTES / 4),
    data: new Uint8Array(ring, CONTROL_BYTES, size),
    ints: new Int32Array(ring, CONTROL_BYTES, size / 4),
    floats: new Float64Array(ring, CONTROL_BYTES, size / 8),
    mask: size - 1,
  };
}

/** Bytes from `from` to `to`, positions modulo 2^32. */
function distance(from: number, to: number): number {
  return (to - from) >>> 0;
}

interface Waiting {
  kind: number;
  id: number;
  seconds: number;
  chunks: Uint8Array[];
  bytes: number;
}

/** The writing side (the relaying thread). */
export class RingWriter {
  private readonly ring: RingViews;
  private readonly size: number;
  /** Where the next byte goes; published up to `published`. */
  private at = 0;
  private published = 0;
  /** The last record's header (its position), while it is unpublished and can still grow. */
  private open: { header: number; id: number; seconds: number } | null = null;
  private readonly waiting: Waiting[] = [];

  constructor(ring: SharedArrayBuffer) {
    this.ring = views(ring);
    this.size = this.ring.mask + 1;
  }

  /** Output of recording `id`, part of the event at `seconds`; joins the open record when it can. */
  output(id: number, seconds: number, chunk: Uint8Array): void {
    if (chunk.byteLength === 0) return;
    if (this.waiting.length > 0) return this.wait(RECORD_OUTPUT, id, seconds, chunk);
    const open = this.open;
    if (open && open.id === id && open.seconds === seconds && this.room() >= chunk.byteLength) {
      this.copyIn(chunk);
      this.ring.ints[((open.header & this.ring.mask) >> 2) + 2] = distance(
        open.header + HEADER_BYTES,
        this.at,
      );
      return;
    }
    if (!this.tryRecord(RECORD_OUTPUT, id, seconds, [chunk], chunk.byteLength, true))
      this.wait(RECORD_OUTPUT, id, seconds, chunk);
  }

  /** Any other record (its data is never split). */
  record(kind: number, id: number, seconds: number, data: Uint8Array = new Uint8Array(0)): void {
    if (HEADER_BYTES * 2 + data.byteLength > this.size)
      throw new Error(`a recording's ${kind} record of ${data.byteLength} bytes does not fit its ring`);
    if (this.waiting.length > 0 || !this.tryRecord(kind, id, seconds, [data], data.byteLength, false))
      this.wait(kind, id, seconds, data);
  }

  /** Makes what was written visible to the reader, and wakes it if it sleeps. */
  publish(): void {
    this.open = null;
    if (this.published === this.at) return;
    this.published = this.at;
    Atomics.store(this.ring.control, WRITTEN, this.at | 0);
    if (Atomics.load(this.ring.control, READER_WAITING) === 1) Atomics.notify(this.ring.control, WRITTEN);
  }

  /** The reader made room (it said so because it was asked): what waits goes in, as far as it fits. */
  roomMade(): void {
    while (this.waiting.length > 0) {
      const next = this.waiting[0]!;
      if (next.kind === RECORD_OUTPUT) {
        const fits = Math.min(next.bytes, this.room() - HEADER_BYTES * 2);
        if (fits <= 0) break;
        const part = takeBytes(next, fits);
        this.tryRecord(RECORD_OUTPUT, next.id, next.seconds, part, fits, false);
        if (next.bytes > 0) continue;
      } else if (!this.tryRecord(next.kind, next.id, next.seconds, next.chunks, next.bytes, false)) break;
      this.waiting.shift();
    }
    this.publish();
    if (this.waiting.length > 0) this.askForRoom();
  }

  /** How many records wait for room (tests look). */
  get backlog(): number {
    return this.waiting.length;
  }

  /** Something published (or waiting to be) that no reader has given back yet. */
  get unread(): boolean {
    return this.waiting.length > 0 || Atomics.load(this.ring.control, READ) !== (this.published | 0);
  }

  private tryRecord(
    kind: number,
    id: number,
    seconds: number,
    chunks: Uint8Array[],
    bytes: number,
    keepOpen: boolean,
  ): boolean {
    const header = (this.at + HEADER_BYTES - 1) & ~(HEADER_BYTES - 1);
    if (this.room() < distance(this.at, header) + HEADER_BYTES + bytes) return false;
    const slot = header & this.ring.mask;
    this.ring.ints[slot >> 2] = kind;
    this.ring.ints[(slot >> 2) + 1] = id;
    this.ring.ints[(slot >> 2) + 2] = bytes;
    this.ring.floats[(slot >> 3) + 2] = seconds;
    this.at = (header + HEADER_BYTES) | 0;
    for (const chunk of chunks) this.copyIn(chunk);
    this.open = keepOpen ? { header, id, seconds } : null;
    return true;
  }

  private copyIn(chunk: Uint8Array): void {
    const slot = this.at & this.ring.mask;
    const first = Math.min(chunk.byteLength, this.size - slot);
    this.ring.data.set(first === chunk.byteLength ? chunk : chunk.subarray(0, first), slot);
    if (first < chunk.byteLength) this.ring.data.set(chunk.subarray(first), 0);
    this.at = (this.at + chunk.byteLength) | 0;
  }

  private room(): number {
    return this.size - distance(Atomics.load(this.ring.control, READ), this.at);
  }

  private wait(kind: number, id: number, seconds: number, chunk: Uint8Array): void {
    const last = this.waiting.at(-1);
    if (kind === RECORD_OUTPUT && last?.kind === kind && last.id === id && last.seconds === seconds) {
      last.chunks.push(chunk);
      last.bytes += chunk.byteLength;
    } else this.waiting.push({ kind, id, seconds, chunks: [chunk], bytes: chunk.byteLength });
    this.open = null;
    if (this.waiting.length === 1) {
      this.publish();
      this.askForRoom();
    }
  }

  /** Asks the reader to say when it read on; if it already did meanwhile, takes the room now. */
  private askForRoom(): void {
    Atomics.store(this.ring.control, WANTS_ROOM, 1);
    const first = this.waiting[0]!;
    const needs = HEADER_BYTES * 2 + (first.kind === RECORD_OUTPUT ? 1 : first.bytes);
    if (this.room() >= needs) {
      Atomics.store(this.ring.control, WANTS_ROOM, 0);
      queueMicrotask(() => this.roomMade());
    }
  }
}

/** Removes the first `count` bytes of a waiting record's chunks and returns them. */
function takeBytes(record: Waiting, count: number): Uint8Array[] {
  const taken: Uint8Array[] = [];
  let left = count;
  while (left > 0) {
    const chunk = record.chunks[0]!;
    if (chunk.byteLength <= left) {
      taken.push(chunk);
      record.chunks.shift();
      left -= chunk.byteLength;
    } else {
      taken.push(chunk.subarray(0, left));
      record.chunks[0] = chunk.subarray(left);
      left = 0;
    }
  }
  record.bytes -= count;
  return taken;
}

/** A record as the reader sees it: its data as one or two views of the ring (valid until `release`). */
export interface RingRecord {
  kind: number;
  id: number;
  seconds: number;
  data: Uint8Array[];
}

/** The reading side (the recordings' thread). */
export class RingReader {
  private readonly ring: RingViews;
  /** Released up to here; read up to `readTo`. */
  private at = 0;
  private readTo = 0;

  /** A reader takes over where the last one (a thread that parked) gave space back. */
  constructor(ring: SharedArrayBuffer) {
    this.ring = views(ring);
    this.at = Atomics.load(this.ring.control, READ);
    this.readTo = this.at;
  }

  /** Every record published since the last call; their views stay valid until `release()`. */
  read(): RingRecord[] {
    const end = Atomics.load(this.ring.control, WRITTEN);
    const records: RingRecord[] = [];
    let at = this.at;
    while (distance(at, end) > 0) {
      const headerAt = (at + HEADER_BYTES - 1) & ~(HEADER_BYTES - 1);
      const header = headerAt & this.ring.mask;
      const length = this.ring.ints[(header >> 2) + 2]!;
      const start = (header + HEADER_BYTES) & this.ring.mask;
      const first = Math.min(length, this.ring.mask + 1 - start);
      const data = [this.ring.data.subarray(start, start + first)];
      if (first < length) data.push(this.ring.data.subarray(0, length - first));
      records.push({
        kind: this.ring.ints[header >> 2]!,
        id: this.ring.ints[(header >> 2) + 1]!,
        seconds: this.ring.floats[(header >> 3) + 2]!,
        data,
      });
      at = (headerAt + HEADER_BYTES + length) | 0;
    }
    this.readTo = at;
    return records;
  }

  /** Gives the space of what `read()` returned back to the writer; true if the writer asked to hear of it. */
  release(): boolean {
    this.at = this.readTo;
    Atomics.store(this.ring.control, READ, this.at);
    if (Atomics.load(this.ring.control, WANTS_ROOM) !== 1) return false;
    Atomics.store(this.ring.control, WANTS_ROOM, 0);
    return true;
  }

  /** Sleeps until something is published past what was released (resolves at once if it already is). */
  async next(): Promise<void> {
    const control = this.ring.control;
    Atomics.store(control, READER_WAITING, 1);
    try {
      const waited = (Atomics as unknown as AsyncAtomics).waitAsync(control, WRITTEN, this.at | 0);
      if (waited.async) await waited.value;
    } finally {
      Atomics.store(control, READER_WAITING, 0);
    }
  }
}

/** Atomics.waitAsync (Node 16+; not in TypeScript's ES2023 library). */
interface AsyncAtomics {
  waitAsync(
    array: Int32Array,
    index: number,
    value: number,
  ): { async: false; value: string } | { async: true; value: Promise<string> };
}
