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
