import { createReadStream, existsSync, statSync, watch } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { AuditEntry } from '../../store/audit/audit-chain.js';
import { dataDir } from '../../store/paths.js';
import { readStoredChainHead } from '../../store/audit/audit-head.js';
import { lastLines } from '../../store/last-lines.js';
import { AUDIT_FILE, DATABASE_FILE } from '../../store/store.js';
import { CliFailure } from '../errors.js';
import { paint, stdoutTarget, type OutputTarget } from '../output.js';

const SKIP = new Set(['seq', 'ts', 'event', 'prev_hash', 'hash']);

export async function logsCommand(
  options: { lines: number; tail?: boolean; json?: boolean },
  target: OutputTarget = stdoutTarget,
): Promise<void> {
  const file = path.join(dataDir(), AUDIT_FILE);
  if (!existsSync(file) && !options.tail) {
    const head = readStoredChainHead(path.join(dataDir(), DATABASE_FILE));
    if (head)
      throw new CliFailure(
        `the audit log is missing (${file}), but the database recorded ${head.seq} entries: it was deleted (agent-bridge audit verify reports it)`,
      );
    // JSON lines for a script: none. The note is for a person, who reads stderr too.
    if (options.json) process.stderr.write(`agent-bridge: no audit log yet (${file})\n`);
    else target.write(`no audit log yet (${file})\n`);
    return;
  }
  // Only the end is read: -n 20 of a log of a hundred megabytes costs what -n 20 of a small one does.
  const lines = !existsSync(file)
    ? { lines: [], end: 0 }
    : options.lines > 0
      ? await lastLines(file, options.lines)
      : { lines: [], end: statSync(file).size }; // -n 0 --tail: only what comes next
  for (const line of lines.lines) target.write(format(line, options.json, target));
  if (options.tail) await follow(file, lines.end, (line) => target.write(format(line, options.json, target)));
}

function format(line: string, json: boolean | undefined, target: OutputTarget): string {
  if (json) return line + '\n';
  try {
    const entry = JSON.parse(line) as AuditEntry;
    const fields = Object.entries(entry)
      .filter(([key]) => !SKIP.has(key))
      .map(
        ([key, value]) => `${key}=${typeof value === 'string' ? shorten(key, value) : JSON.stringify(value)}`,
      )
      .join(' ');
    return `${paint(target, 'dim', entry.ts)} ${paint(target, 'bold', entry.event.padEnd(24))} ${fields}\n`;
  } catch {
    return line + '\n';
  }
}

function shorten(key: string, value: string): string {
  const short = key.endsWith('_id') ? value.slice(0, 8) : value.replace(/\s+/g, ' ');
  return /\s/.test(short) ? JSON.stringify(short) : short;
}

async function readLines(file: string, start: number): Promise<{ lines: string[]; end: number }> {
  const end = statSync(file).size;
  if (end <= start) return { lines: [], end: start };
  const reader = createInterface({
    input: createReadStream(file, { start, end: end - 1, encoding: 'utf8' }),
    crlfDelay: Infinity,
  });
  const lines: string[] = [];
  for await (const line of reader) if (line) lines.push(line);
  return { lines, end };
}

/** Prints lines appended after `offset` until interrupted (Ctrl-C), woken by the folder's changes (no polling). */
function follow(file: string, offset: number, print: (line: string) => void): Promise<void> {
  return new Promise(() => {
    let position = offset;
    let reading = false;
    let again = false;
    const check = async (): Promise<void> => {
      if (reading) {
        again = true; // written to while we read: read on once this read ends
        return;
      }
      if (!existsSync(file)) return;
      reading = true;
      const { lines, end } = await readLines(file, position);
      position = end;
      lines.forEach(print);
      reading = false;
      if (again) {
        again = false;
        await check();
      }
    };
    watch(path.dirname(file), (_event, name) => {
      if (!name || name === path.basename(file)) void check();
    });
  });
}
