import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyAuditLog } from '../../src/store/audit/audit-verify.js';
import { tempStore, type TempStore } from '../support/temp-store.js';

let store: TempStore;
afterEach(() => store?.remove());

function writeEntries(count: number): string {
  store = tempStore();
  for (let i = 0; i < count; i++) {
    store.audit.record(i % 2 ? 'REPLY_INJECTED' : 'PROMPT_DETECTED', {
      session_id: 's',
      prompt_id: `p${i}`,
      value: `v${i}`,
    });
  }
  return store.audit.file;
}

function editLine(file: string, lineNumber: number, edit: (line: string) => string | null): void {
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  const edited = edit(lines[lineNumber - 1]!);
  if (edited === null) lines.splice(lineNumber - 1, 1);
  else lines[lineNumber - 1] = edited;
  writeFileSync(file, lines.join('\n') + '\n');
}

describe('hash-chained audit log', () => {
  it('chains every entry to the one before, from genesis', async () => {
    const file = writeEntries(5);
    const entries = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entries[0]).toMatchObject({ seq: 1, prev_hash: 'genesis', event: 'PROMPT_DETECTED' });
    expect(entries[3]!.prev_hash).toBe(entries[2]!.hash);
    expect(entries[4]!.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await verifyAuditLog(file)).toEqual({ ok: true, entries: 5 });
  });

  it('reports the first tampered line: a changed value', async () => {
    const file = writeEntries(6);
    editLine(file, 4, (line) => line.replace('"value":"v3"', '"value":"v9"'));
    expect(await verifyAuditLog(file)).toMatchObject({
      ok: false,
      line: 4,
      reason: expect.stringMatching(/modified/),
    });
  });

  it('reports a removed line where the chain breaks', async () => {
    const file = writeEntries(6);
    editLine(file, 3, () => null);
    expect(await verifyAuditLog(file)).toMatchObject({ ok: false, line: 3 });
  });

  it('reports a rewritten line whose own hash was recomputed (the next line breaks)', async () => {
    const file = writeEntries(4);
    editLine(file, 2, (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      entry.value = 'forged';
      return JSON.stringify(entry);
    });
    expect(await verifyAuditLog(file)).toMatchObject({ ok: false, line: 2 });
  });

  it('reports a line that is not JSON', async () => {
    const file = writeEntries(3);
    editLine(file, 2, () => '{oops');
    expect(await verifyAuditLog(file)).toMatchObject({ ok: false, line: 2, reason: 'not valid JSON' });
  });

  it('never writes a secret', () => {
    const file = writeEntries(0);
    store.audit.record('REPLY_RECEIVED', { value: 'token=ghp_abcdefghijklmnopqrstuvwxyz0123456789' });
    expect(readFileSync(file, 'utf8')).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
  });
});
