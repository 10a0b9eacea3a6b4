import { open } from 'node:fs/promises';

const CHUNK_BYTES = 64 * 1024;

/**
 * The last `count` non-empty lines of a file and its size when read, read backwards from its end in chunks:
 * time and memory follow `count`, not the file's length (an audit log of a hundred megabytes).
 */
export async function lastLines(file: string, count: number): Promise<{ lines: string[]; end: number }> {
  const handle = await open(file, 'r');
  try {
    const end = (await handle.stat()).size;
    const chunks: Buffer[] = [];
    let position = end;
    let newlines = 0;
    // One more line break than lines wanted: the first line found may be cut by the chunk's start.
    while (position > 0 && newlines <= count) {
      const size = Math.min(CHUNK_BYTES, position);
      position -= size;
      const chunk = Buffer.alloc(size);
      await handle.read(chunk, 0, size, position);
      chunks.unshift(chunk);
      for (const byte of chunk) if (byte === 0x0a) newlines++;
    }
    const text = Buffer.concat(chunks).toString('utf8');
    const lines = text.split('\n');
    if (position > 0) lines.shift(); // a partial line: its start lies before what was read
    return { lines: lines.filter((line) => line !== '').slice(-count), end };
  } finally {
    await handle.close();
  }
}

/**
 * A file's non-empty lines from its last to its first, read backwards in chunks as they are asked for (the
 * caller stops when it has seen enough: time follows how far back it reads, not the file's length).
 */
export async function* linesFromEnd(file: string): AsyncGenerator<string> {
  const handle = await open(file, 'r');
  try {
    let position = (await handle.stat()).size;
    let carry = Buffer.alloc(0);
    while (position > 0) {
      const size = Math.min(CHUNK_BYTES, position);
      position -= size;
      const chunk = Buffer.alloc(size);
      await handle.read(chunk, 0, size, position);
      let text = Buffer.concat([chunk, carry]);
      carry = Buffer.alloc(0);
      if (position > 0) {
        // What comes before the first line break may go on further back: kept for the next read.
        const first = text.indexOf(0x0a);
        if (first < 0) {
          carry = text;
          continue;
        }
        carry = text.subarray(0, first);
        text = text.subarray(first + 1);
      }
      const lines = text.toString('utf8').split('\n');
      for (let i = lines.length - 1; i >= 0; i--) if (lines[i] !== '') yield lines[i]!;
    }
  } finally {
    await handle.close();
  }
}
