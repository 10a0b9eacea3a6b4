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
  | { op: 'room' }
  /** It wrote everything and reads no more: the recordings, for the next thread. */
  | { op: 'parked'; recordings: ParkedRecording[] };

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

/** What the main thread asks of the recordings' thread. */
export type RecorderRequest = { op: 'park' };

/** A recording a parked thread handed back: its open file, and where its encoding stood. */
export interface ParkedRecording {
  id: number;
  fd: number;
  /** The start of a character split at the end of the last output, waiting for the rest. */
  held: Uint8Array;
  lastSeconds: number;
}

export interface RecorderThreadData {
  ring: SharedArrayBuffer;
  recordings: ParkedRecording[];
}

/**
 * The recordings' thread parks once no record came for this long: a thread costs ~10 MiB of memory, and a
 * session host is mostly idle (an agent waiting for a person). The next record starts a thread again (~30 ms).
 */
export const PARK_AFTER_MS = 20_000;

/**
 * The one recordings' thread of this process, started with the first record. It keeps the process alive
 * only while a recording is open, so a recording's last bytes are always written before the process ends.
 * After PARK_AFTER_MS without a record it parks: it writes everything, hands its recordings back (files
 * open) and ends; the next record starts a thread that goes on with them where the ring stands.
 */
class RecorderThread {
  private static instance: RecorderThread | null = null;
  private worker: Worker | null = null;
  /** A park asked of the running thread, not yet answered. */
  private parking = false;
  /** What the last thread handed back when it parked, for the next one. */
  private parked: ParkedRecording[] = [];
  private readonly ring: RingWriter;
  private readonly buffer: SharedArrayBuffer;
  private readonly recordings = new Map<number, Handlers>();
  private nextId = 1;
  /** Parks the thread PARK_AFTER_MS after the last record; made at the first, re-armed (refresh) at each. */
  private idle: NodeJS.Timeout | null = null;

  static shared(): RecorderThread {
    RecorderThread.instance ??= new RecorderThread();
    return RecorderThread.instance;
  }

  /** Parks this process's recordings' thread now, as PARK_AFTER_MS of quiet would (tests). */
  static park(): Promise<void> {
    return RecorderThread.instance?.park() ?? Promise.resolve();
  }

  /** Whether this process has a recordings' thread running (tests). */
  static get running(): boolean {
    const thread = RecorderThread.instance;
    return thread !== null && thread.worker !== null;
  }

  private constructor() {
    this.buffer = createRing();
    this.ring = new RingWriter(this.buffer);
  }

  open(file: string, header: string, handlers: Handlers): number {
    const id = this.nextId++;
    this.recordings.set(id, handlers);
    this.worker?.ref();
    const open = Buffer.from(JSON.stringify({ file, header }));
    if (open.byteLength > MAX_HEADER_BYTES) {
      // Said like any failure to write, after the constructor returned: the recording stops, the session goes on.
      const message = `the recording's header is ${open.byteLength} bytes (its command or title is too long to record)`;
      queueMicrotask(() => this.onReply({ op: 'failed', id, message }));
      return id;
    }
    this.ring.record(RECORD_OPEN, id, 0, open);
    this.publish();
    return id;
  }

  output(id: number, seconds: number, chunk: Uint8Array): void {
    if (!this.recordings.has(id)) return;
    this.ring.output(id, seconds, chunk);
    // A ring full of a batch not yet published (the ring published it to make room): a thread must read it.
    if (!this.worker && this.ring.backlog > 0) this.wake();
  }

  resize(id: number, seconds: number, size: string): void {
    if (!this.recordings.has(id)) return;
    this.ring.record(RECORD_RESIZE, id, seconds, Buffer.from(size));
    this.publish();
  }

  close(id: number, seconds: number): void {
    if (!this.recordings.has(id)) return;
    this.ring.record(RECORD_CLOSE, id, seconds);
    this.publish();
  }

  /** Makes what was written visible to the thread (starting one if it parked). */
  publish(): void {
    this.ring.publish();
    if (this.ring.unread) this.wake();
  }

  /** A thread reads the ring: the running one, or a new one going on from where the last one parked. */
  private wake(): void {
    // One timer for the thread's life, re-armed: no timer is made per batch, and none runs while it is parked.
    if (this.idle) this.idle.refresh();
    else this.idle = setTimeout(() => void this.park(), PARK_AFTER_MS).unref();
    if (this.worker) return;
    const worker = startWorker({ ring: this.buffer, recordings: this.parked });
    this.parked = [];
    this.worker = worker;
    if (this.recordings.size === 0) worker.unref();
    worker.on('message', (reply: RecorderReply) => this.onReply(reply, worker));
    worker.on('error', (error) => this.lost(worker, error));
    worker.on('exit', (code) => this.lost(worker, new Error(`the recordings' thread exited (${code})`)));
  }

  private park(): Promise<void> {
    const worker = this.worker;
    if (!worker || this.parking) return Promise.resolve();
    this.parking = true;
    worker.postMessage({ op: 'park' } satisfies RecorderRequest);
    return new Promise((resolve) => worker.once('exit', () => resolve()));
  }

  /** A recording that failed is over as well: it wrote what it could, and its close() resolves. */
  private onReply(reply: RecorderReply, from?: Worker): void {
    if (reply.op === 'room') return this.ring.roomMade();
    if (reply.op === 'parked') return this.onParked(reply.recordings, from!);
    const handlers = this.recordings.get(reply.id);
    if (!handlers) return;
    this.recordings.delete(reply.id);
    if (this.recordings.size === 0) this.worker?.unref();
    if (reply.op === 'failed')
      handlers.failed(Object.assign(new Error(reply.message), reply.code ? { code: reply.code } : {}));
    handlers.closed();
  }

  /** The thread wrote everything and stopped reading: it ends; what came meanwhile wakes the next one. */
  private onParked(recordings: ParkedRecording[], worker: Worker): void {
    this.parked = recordings;
    this.parking = false;
    this.worker = null;
    void worker.terminate();
    if (this.ring.unread) this.wake();
  }

  /** The thread died (it should not): every open recording stops and says so; new ones start a new thread. */
  private lost(worker: Worker, error: Error): void {
    if (this.worker !== worker) return; // it parked: its end was asked for
    if (RecorderThread.instance === this) RecorderThread.instance = null;
    if (this.idle) clearTimeout(this.idle);
    const open = [...this.recordings.values()];
    this.recordings.clear();
    for (const handlers of open) {
      handlers.failed(error);
      handlers.closed();
    }
  }
}

/** Parks the recordings' thread now, as a quiet minute would (tests). */
export const parkRecordingsThread = (): Promise<void> => RecorderThread.park();
/** Whether the recordings' thread runs now (tests). */
export const recordingsThreadRunning = (): boolean => RecorderThread.running;

interface TsxPackage {
  exports: { './esm/api': { import: { default: string } } };
}

/** Built, the thread is plain JavaScript; from the sources (tests, tsx) it loads through tsx first. */
function startWorker(workerData: RecorderThreadData): Worker {
  // Its recordings' files outlive it when it parks: a thread's end must not close them.
  const options = { workerData, trackUnmanagedFds: false };
  if (!FROM_SOURCES) return new Worker(new URL('./asciicast-worker.js', import.meta.url), options);
  const require = createRequire(import.meta.url);
  const api = (require('tsx/package.json') as TsxPackage).exports['./esm/api'].import.default;
  const tsx = new URL(api, pathToFileURL(require.resolve('tsx/package.json'))).href;
  const entry = new URL('./asciicast-worker.ts', import.meta.url).href;
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => (tsx.register(), import(${JSON.stringify(entry)})));`;
  return new Worker(boot, { eval: true, ...options });
}
