import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { systemClock, type Clock, type TimerHandle } from '../core/clock.js';
import { FROM_SOURCES } from '../package-files.js';

/** Output is grouped into one event per this many ms (or per MAX_BATCH_BYTES): fewer, larger writes. */
export const RECORD_BATCH_MS = 20;
const MAX_BATCH_BYTES = 256 * 1024;

export interface AsciicastHeader {
  width: number;
  height: number;
  /** Unix seconds. */
  timestamp: number;
  title?: string;
  command?: string;
  env?: Record<string, string>;
}

/** One asciicast event for the recordings' thread; output as raw bytes (it decodes them), resizes as text. */
export interface RecorderEvent {
  seconds: number;
  code: 'o' | 'r';
  data: Uint8Array | string;
}

/** What the recordings' thread (asciicast-worker.ts) is asked, one recording per id. */
export type RecorderRequest =
  | { op: 'open'; id: number; file: string; header: string }
  | { op: 'events'; id: number; events: RecorderEvent[] }
  | { op: 'close'; id: number; seconds: number };

export type RecorderReply =
  { op: 'failed'; id: number; message: string; code?: string } | { op: 'closed'; id: number };

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
  private batch: Uint8Array[] = [];
  private batchBytes = 0;
  private batchAt = 0;
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

  output(chunk: Uint8Array): void {
    if (this.closed) return;
    if (this.batch.length === 0) this.batchAt = this.clock.now();
    this.batch.push(chunk);
    this.batchBytes += chunk.byteLength;
    if (this.batchBytes >= MAX_BATCH_BYTES) this.flush();
    else this.timer ??= this.clock.after(RECORD_BATCH_MS, () => this.flush());
  }

  resize(cols: number, rows: number): void {
    if (this.closed) return;
    this.flush({ seconds: this.seconds(this.clock.now()), code: 'r', data: `${cols}x${rows}` });
  }

  /** Writes what is buffered and closes the file; resolves once it is on disk. */
  close(): Promise<void> {
    if (!this.closed) {
      this.flush();
      this.closed = true;
      this.thread.send({ op: 'close', id: this.id, seconds: this.seconds(this.clock.now()) });
    }
    return this.done;
  }

  private stop(): void {
    this.closed = true;
    this.timer?.cancel();
    this.timer = null;
    this.batch = [];
    this.batchBytes = 0;
  }

  /** Hands the gathered bytes (copied into one buffer the thread takes over) and `then` to the thread. */
  private flush(then?: RecorderEvent): void {
    this.timer?.cancel();
    this.timer = null;
    const events: RecorderEvent[] = [];
    const transfer: ArrayBuffer[] = [];
    if (this.batchBytes > 0) {
      const data = new Uint8Array(this.batchBytes);
      let at = 0;
      for (const chunk of this.batch) {
        data.set(chunk, at);
        at += chunk.byteLength;
      }
      events.push({ seconds: this.seconds(this.batchAt), code: 'o', data });
      transfer.push(data.buffer);
    }
    this.batch = [];
    this.batchBytes = 0;
    if (then) events.push(then);
    if (events.length > 0) this.thread.send({ op: 'events', id: this.id, events }, transfer);
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
  private readonly recordings = new Map<number, Handlers>();
  private nextId = 1;

  static shared(): RecorderThread {
    RecorderThread.instance ??= new RecorderThread();
    return RecorderThread.instance;
  }

  private constructor() {
    this.worker = startWorker();
    this.worker.unref();
    this.worker.on('message', (reply: RecorderReply) => this.onReply(reply));
    this.worker.on('error', (error) => this.lost(error));
    this.worker.on('exit', (code) => this.lost(new Error(`the recordings' thread exited (${code})`)));
  }

  open(file: string, header: string, handlers: Handlers): number {
    const id = this.nextId++;
    if (this.recordings.size === 0) this.worker.ref();
    this.recordings.set(id, handlers);
    this.send({ op: 'open', id, file, header });
    return id;
  }

  send(request: RecorderRequest, transfer: ArrayBuffer[] = []): void {
    if (this.recordings.has(request.id)) this.worker.postMessage(request, transfer);
  }

  /** A recording that failed is over as well: it wrote what it could, and its close() resolves. */
  private onReply(reply: RecorderReply): void {
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
function startWorker(): Worker {
  if (!FROM_SOURCES) return new Worker(new URL('./asciicast-worker.js', import.meta.url));
  const require = createRequire(import.meta.url);
  const api = (require('tsx/package.json') as TsxPackage).exports['./esm/api'].import.default;
  const tsx = new URL(api, pathToFileURL(require.resolve('tsx/package.json'))).href;
  const entry = new URL('./asciicast-worker.ts', import.meta.url).href;
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => (tsx.register(), import(${JSON.stringify(entry)})));`;
  return new Worker(boot, { eval: true });
}
