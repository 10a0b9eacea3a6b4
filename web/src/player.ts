import type { Terminal } from '@xterm/xterm';
import { clock } from './format.js';

/**
 * An asciicast v2 player for xterm.js: a JSON header line ({width, height, idle_time_limit?}), then
 * [time, code, data] lines. "o" is output, "r" a resize to "COLSxROWS"; other codes are skipped.
 */

export type CastEvent =
  { time: number; code: 'o'; data: string } | { time: number; code: 'r'; cols: number; rows: number };

export interface Cast {
  width: number;
  height: number;
  title: string | null;
  events: CastEvent[];
  /** Seconds, after long pauses are shortened. */
  duration: number;
  /** Seconds as recorded (the recordings list's length). */
  recordedDuration: number;
  /** Pauses longer than this many seconds play as this long. */
  idleLimit: number;
}

/** Pauses longer than this play as this long, unless the recording says otherwise. */
const DEFAULT_IDLE_LIMIT = 3;

export function parseCast(text: string): Cast {
  const lines = text.split('\n');
  const headerLine = lines.findIndex((line) => line.trim() !== '');
  if (headerLine < 0) throw new Error('empty recording');
  const header = JSON.parse(lines[headerLine]!) as Record<string, unknown>;
  const width = Number(header.width);
  const height = Number(header.height);
  if (!(width > 0 && height > 0)) throw new Error('not an asciicast v2 recording (no width/height)');
  const idleLimit = typeof header.idle_time_limit === 'number' ? header.idle_time_limit : DEFAULT_IDLE_LIMIT;
  const events: CastEvent[] = [];
  let lastRaw = 0;
  let time = 0;
  for (const line of lines.slice(headerLine + 1)) {
    if (!line.trim()) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue; // a torn last line of a recording still being written
    }
    if (!Array.isArray(entry) || typeof entry[0] !== 'number' || typeof entry[2] !== 'string') continue;
    const [raw, code, data] = entry as [number, string, string];
    time += Math.min(Math.max(0, raw - lastRaw), idleLimit);
    lastRaw = raw;
    if (code === 'o') events.push({ time, code, data });
    else if (code === 'r') {
      const match = /^(\d+)x(\d+)$/.exec(data.trim());
      if (match) events.push({ time, code, cols: Number(match[1]), rows: Number(match[2]) });
    }
  }
  return {
    width,
    height,
    title: typeof header.title === 'string' ? header.title : null,
    events,
    duration: events.length > 0 ? events[events.length - 1]!.time : 0,
    recordedDuration: lastRaw,
    idleLimit,
  };
}

/**
 * Why the player's length is not the recording's: "idle gaps over 3 s are shortened: plays in 0:35 of 3:41";
 * null when the two read the same.
 */
export function shortenedNote(cast: Cast): string | null {
  const played = clock(cast.duration);
  const recorded = clock(cast.recordedDuration);
  if (played === recorded) return null;
  return `idle gaps over ${cast.idleLimit} s are shortened: plays in ${played} of ${recorded}`;
}

export interface PlayerState {
  playing: boolean;
  time: number;
  duration: number;
  ended: boolean;
}

export class CastPlayer {
  private index = 0;
  /** Media time at `since` (wall clock, ms). */
  private position = 0;
  private since = 0;
  private playing = false;
  private speed = 1;
  private timer: number | undefined;

  constructor(
    private readonly term: Terminal,
    private readonly cast: Cast,
    private readonly onUpdate: (state: PlayerState) => void,
  ) {
    this.seek(0);
  }

  get state(): PlayerState {
    const time = this.currentTime();
    return {
      playing: this.playing,
      time,
      duration: this.cast.duration,
      ended: this.index >= this.cast.events.length,
    };
  }

  play(): void {
    if (this.playing) return;
    if (this.index >= this.cast.events.length) this.seek(0);
    this.playing = true;
    this.since = performance.now();
    this.tick();
  }

  pause(): void {
    if (!this.playing) return;
    this.position = this.currentTime();
    this.playing = false;
    window.clearTimeout(this.timer);
    this.onUpdate(this.state);
  }

  toggle(): void {
    if (this.playing) this.pause();
    else this.play();
  }

  setSpeed(speed: number): void {
    this.position = this.currentTime();
    this.since = performance.now();
    this.speed = speed;
    if (this.playing) {
      window.clearTimeout(this.timer);
      this.tick();
    }
  }

  /** Redraws from the start up to `time` at once. */
  seek(time: number): void {
    window.clearTimeout(this.timer);
    // Queued, so that output still being parsed from before lands before the reset, not after it.
    this.term.write('', () => {
      this.term.reset();
      this.term.resize(this.cast.width, this.cast.height);
    });
    this.index = 0;
    this.position = Math.max(0, Math.min(time, this.cast.duration));
    this.since = performance.now();
    this.apply(this.position);
    if (this.playing) this.tick();
    else this.onUpdate(this.state);
  }

  dispose(): void {
    this.playing = false;
    window.clearTimeout(this.timer);
  }

  private currentTime(): number {
    if (!this.playing) return this.position;
    return Math.min(
      this.cast.duration,
      this.position + ((performance.now() - this.since) / 1000) * this.speed,
    );
  }

  /** Writes every event up to `time`, output batched; a resize waits for the output before it. */
  private apply(time: number): void {
    const events = this.cast.events;
    let output = '';
    while (this.index < events.length && events[this.index]!.time <= time) {
      const event = events[this.index++]!;
      if (event.code === 'o') output += event.data;
      else {
        const { cols, rows } = event;
        this.term.write(output, () => this.term.resize(cols, rows));
        output = '';
      }
    }
    if (output) this.term.write(output);
  }

  private tick(): void {
    if (!this.playing) return;
    const now = this.currentTime();
    this.apply(now);
    const next = this.cast.events[this.index];
    if (!next) {
      this.position = this.cast.duration;
      this.playing = false;
      this.onUpdate(this.state);
      return;
    }
    this.onUpdate(this.state);
    const wait = ((next.time - now) / this.speed) * 1000;
    // Wake at least four times a second so the position display moves.
    this.timer = window.setTimeout(() => this.tick(), Math.max(0, Math.min(wait, 250)));
  }
}
