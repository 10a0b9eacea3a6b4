import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { systemClock, type Clock, type TimerHandle } from '../core/clock.js';
import { FROM_SOURCES } from '../package-files.js';
import { RECORD_CLOSE, RECORD_OPEN, RECORD_RESIZE, RingWriter, createRing } from './recording-ring.js';

/** Output is grouped into one event per this many ms (or per MAX_BATCH_BYTES): fewer, larger writes. */
export const RECORD_BATCH_MS = 20;
const MAX_BATCH_BYTES = 256 * 1024;
/** A header this large (a command line of megabytes) is not recorded: the ring takes records up to its size. */
const MAX_HEADER_BYTES = 256 * 1024;

export interface AsciicastHeader {
  width: number;
  height: number;
  /** Unix seconds. */
  timestamp: number;
  title?: string;
  command?: string;
  env?: Record<string, string>;
}

export type RecorderReply =
  | { op: 'failed'; id: number; message: string; code?: string }
  | { op: 'closed'; id: number }
  /** The thread read on after the relaying thread found the ring full: what waits can go in. */
  | { op: 'room' };

/**
 * Writes a terminal session as asciicast v2 (https://docs.asciinema.org/manual/asciicast/v2/): a JSON header
 * line, then `[seconds, "o" | "r", data]` lines. The relay's thread only gathers the bytes with their time;
 * decoding, JSON-escaping and writing happen on a thread of their own (they cost a third of the relay's
 * throughput on its thread). Output bytes are decoded as a stream, so a character split across two reads is
 * never mangled. The file is private (0600): terminals show secrets.
 */
export class AsciicastWriter {
  private readonly thread: RecorderThread;
  private readonly id: number;
  private readonly clock: Clock;
  private readonly startedAt: number;
  /** The current event's time (seconds into the recording), while one is gathered. */
  private eventSeconds: number | null = null;
  private batchBytes = 0;
  private timer: TimerHandle | null = null;
  private closed = false;
  private readonly done: Promise<void>;

  /**
   * `onStopped` hears, once, that the recording could not be written (a full or read-only disk): it stops
   * there, and the session goes on; whoever runs it says so rather than letting the recording end silently.
   */
  constructor(
    readonly file: string,
    header: AsciicastHeader,
    clock: Clock = systemClock,
    onStopped?: (error: Error) => void,
  ) {
    this.clock = clock;
    this.startedAt = clock.now();
    this.thread = RecorderThread.shared();
    let finished: () => void = () => undefined;
    this.done = new Promise((resolve) => (finished = resolve));
    this.id = this.thread.open(file, JSON.stringify({ version: 2, ...header }) + '\n', {
      failed: (error) => {
        this.stop();
        onStopped?.(error);
      },
      closed: () => finished(),
    });
  }

  /** Copies `chunk` into the current event (the thread's ring); the event ends after its time or size. */
  output(chunk: Uint8Array): void {
    if (this.closed) return;
    this.eventSeconds ??= this.seconds(this.clock.now());
    this.thread.output(this.id, this.eventSeconds, chunk);
    this.batchBytes += chunk.byteLength;
    if (this.batchBytes >= MAX_BATCH_BYTES) this.flush();
    else this.timer ??= this.clock.after(RECORD_BATCH_MS, () => this.flush());
  }

  resize(cols: number, rows: number): void {
    if (this.closed) return;
    this.flush();
    this.thread.resize(this.id, this.seconds(this.clock.now()), `${cols}x${rows}`);
  }

  /** Writes what is buffered and closes the file; resolves once it is on disk. */
  close(): Promise<void> {
    if (!this.closed) {
      this.flush();
      this.closed = true;
      this.thread.close(this.id, this.seconds(this.clock.now()));
    }
    return this.done;
  }

  private stop(): void {
    this.closed = true;
    this.timer?.cancel();
    this.timer = null;
  }

  /** Ends the current event: the thread sees it (and wakes, if it sleeps). */
  private flush(): void {
    this.timer?.cancel();
    this.timer = null;
    this.eventSeconds = null;
    this.batchBytes = 0;
    this.thread.publish();
  }

  private seconds(at: number): number {
    return Math.max(0, (at - this.startedAt) / 1000);
  }
}

interface Handlers {
  failed(error: Error): void;
  closed(): void;
}

/**
 * The one recordings' thread of this process, started with the first recording. It keeps the process alive
 * only while a recording is open, so a recording's last bytes are always written before the process ends.
 */
class RecorderThread {
  private static instance: RecorderThread | null = null;
  private readonly worker: Worker;
  private readonly ring: RingWriter;
  private readonly recordings = new Map<number, Handlers>();
  private nextId = 1;

  static shared(): RecorderThread {
    RecorderThread.instance ??= new RecorderThread();
    return RecorderThread.instance;
  }

  private constructor() {
    const ring = createRing();
    this.ring = new RingWriter(ring);
    this.worker = startWorker(ring);
    this.worker.unref();
    this.worker.on('message', (reply: RecorderReply) => this.onReply(reply));
    this.worker.on('error', (error) => this.lost(error));
    this.worker.on('exit', (code) => this.lost(new Error(`the recordings' thread exited (${code})`)));
  }

  open(file: string, header: string, handlers: Handlers): number {
    const id = this.nextId++;
    if (this.recordings.size === 0) this.worker.ref();
    this.recordings.set(id, handlers);
    const open = Buffer.from(JSON.stringify({ file, header }));
    if (open.byteLength > MAX_HEADER_BYTES) {
      // Said like any failure to write, after the constructor returned: the recording stops, the session goes on.
      const message = `the recording's header is ${open.byteLength} bytes (its command or title is too long to record)`;
      queueMicrotask(() => this.onReply({ op: 'failed', id, message }));
      return id;
    }
    this.ring.record(RECORD_OPEN, id, 0, open);
    this.ring.publish();
    return id;
  }

  output(id: number, seconds: number, chunk: Uint8Array): void {
    if (this.recordings.has(id)) this.ring.output(id, seconds, chunk);
  }

  resize(id: number, seconds: number, size: string): void {
    if (!this.recordings.has(id)) return;
    this.ring.record(RECORD_RESIZE, id, seconds, Buffer.from(size));
    this.ring.publish();
  }

  close(id: number, seconds: number): void {
    if (!this.recordings.has(id)) return;
    this.ring.record(RECORD_CLOSE, id, seconds);
    this.ring.publish();
  }

  publish(): void {
    this.ring.publish();
  }

  /** A recording that failed is over as well: it wrote what it could, and its close() resolves. */
  private onReply(reply: RecorderReply): void {
    if (reply.op === 'room') return this.ring.roomMade();
    const handlers = this.recordings.get(reply.id);
    if (!handlers) return;
    this.recordings.delete(reply.id);
    if (this.recordings.size === 0) this.worker.unref();
    if (reply.op === 'failed')
      handlers.failed(Object.assign(new Error(reply.message), reply.code ? { code: reply.code } : {}));
    handlers.closed();
  }

  /** The thread died (it should not): every open recording stops and says so; new ones start a new thread. */
  private lost(error: Error): void {
    if (RecorderThread.instance === this) RecorderThread.instance = null;
    const open = [...this.recordings.values()];
    this.recordings.clear();
    for (const handlers of open) {
      handlers.failed(error);
      handlers.closed();
    }
  }
}

interface TsxPackage {
  exports: { './esm/api': { import: { default: string } } };
}

/** Built, the thread is plain JavaScript; from the sources (tests, tsx) it loads through tsx first. */
function startWorker(ring: SharedArrayBuffer): Worker {
  const workerData = { ring };
  if (!FROM_SOURCES) return new Worker(new URL('./asciicast-worker.js', import.meta.url), { workerData });
  const require = createRequire(import.meta.url);
  const api = (require('tsx/package.json') as TsxPackage).exports['./esm/api'].import.default;
  const tsx = new URL(api, pathToFileURL(require.resolve('tsx/package.json'))).href;
  const entry = new URL('./asciicast-worker.ts', import.meta.url).href;
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => (tsx.register(), import(${JSON.stringify(entry)})));`;
  return new Worker(boot, { eval: true, workerData });
}
