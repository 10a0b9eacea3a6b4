import type { ServerResponse } from 'node:http';

/** Streams `size` zero bytes lazily (a large file of which only the size matters), stopping if the client goes. */
export function streamZeros(res: ServerResponse, size: number): void {
  const chunk = Buffer.alloc(64 * 1024);
  let left = size;
  const pump = (): void => {
    while (left > 0) {
      const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= piece.length;
      if (!res.write(piece)) {
        res.once('drain', pump);
        return;
      }
    }
    res.end();
  };
  res.on('close', () => (left = 0));
  pump();
}
