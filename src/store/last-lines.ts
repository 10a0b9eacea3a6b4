import { open, type FileHandle } from 'node:fs/promises';

const CHUNK_BYTES = 64 * 1024;

/**
 * The last `count` non-empty lines of a file and its size when read, read backwards from its end in chunks:
 * time and memory follow `count`, not the file's length (an audit log of a hundred megabytes).
 */
export async function lastLines(file: string, count: number): Promise<{ lines: string[]; end: number }> {
  const handle = await open(file, 'r');
  try {
    const end = (await handle.stat()).size;
    const lines: string[] = [];
    if (count > 0) for await (const line of linesBefore(handle, end)) if (lines.push(line) >= count) break;
    return { lines: lines.reverse(), end };
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
    yield* linesBefore(handle, (await handle.stat()).size);
  } finally {
    await handle.close();
  }
}

/** The non-empty lines before byte `end` of an open file, last first. */
async function* linesBefore(handle: FileHandle, end: number): AsyncGenerator<string> {
  let position = end;
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
}
