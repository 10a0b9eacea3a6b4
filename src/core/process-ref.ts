/**
 * A process as the store remembers it: its pid and when it started (clock ticks since boot, Linux), so a
 * pid the kernel reused for another program, or a zombie, is not mistaken for it. `startTime` is null where
 * it cannot be read (not Linux, or a row written before it was kept).
 */
export interface ProcessRef {
  pid: number;
  startTime: number | null;
}

/** Asks whether the process a reference names is still running (injected: the store does no /proc I/O). */
export type IsAlive = (ref: ProcessRef) => boolean;
