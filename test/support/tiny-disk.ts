import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

/**
 * A real, small filesystem (tmpfs) mounted at `dir`, to fill up or make read-only: the errors agent-bridge
 * then meets (ENOSPC, SQLITE_FULL, EROFS) are the kernel's own. Mounting needs root (CI runs as root).
 */
export class TinyDisk {
  private constructor(readonly dir: string) {}

  /** Mounts one, or returns null with the reason when this machine does not allow it. */
  static mount(dir: string, size: string): TinyDisk | string {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
      return new TinyDisk(dir);
    } catch (error) {
      return `cannot mount a tmpfs here (${String(error).split('\n')[0]}): these tests need root`;
    }
  }

  /** Writes a filler file until the disk is full. */
  fill(): void {
    const fd = openSync(path.join(this.dir, 'filler'), 'w');
    const block = Buffer.alloc(64 * 1024, 1);
    try {
      for (;;) writeSync(fd, block);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      // Single bytes, until not even one fits.
      try {
        for (;;) writeSync(fd, block, 0, 1);
      } catch {
        // full
      }
    } finally {
      closeSync(fd);
    }
  }

  readOnly(): void {
    execFileSync('mount', ['-o', 'remount,ro', this.dir], { stdio: 'pipe' });
  }

  unmount(): void {
    execFileSync('umount', ['-l', this.dir], { stdio: 'pipe' });
    rmSync(this.dir, { recursive: true, force: true });
  }
}
