import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lastLines, linesFromEnd } from '../../src/store/last-lines.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function file(text: string): string {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-lines-'));
  const name = path.join(dir, 'log');
  writeFileSync(name, text);
  return name;
}

async function all(name: string): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of linesFromEnd(name)) lines.push(line);
  return lines;
}

describe('a file read from its end', () => {
  it('gives every line, last first, whatever lies across the reads (lines longer than a read, breaks at its edge)', async () => {
    // 64 KiB reads: lines of 100 KiB, lines that end exactly at a read's edge, short ones and empty ones.
    const lines = [
      'first',
      'x'.repeat(100 * 1024),
      'y'.repeat(64 * 1024 - 1),
      'é'.repeat(40_000),
      'a',
      'last',
    ];
    const name = file(lines.join('\n') + '\n\n');
    expect(await all(name)).toEqual([...lines].reverse());
    // The last three lines, blank lines at the end not counted among them.
    expect((await lastLines(name, 3)).lines).toEqual(lines.slice(-3));
  });

  it('reads no further back than asked (a caller that stops early)', async () => {
    const name = file(Array.from({ length: 50_000 }, (_, i) => `line ${i}`).join('\n'));
    const seen: string[] = [];
    for await (const line of linesFromEnd(name)) {
      seen.push(line);
      if (seen.length === 3) break;
    }
    expect(seen).toEqual(['line 49999', 'line 49998', 'line 49997']);
    expect(await all(file(''))).toEqual([]);
  });
});
