import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extractAttachMarkers } from '../../src/core/attach-markers.js';
import { parseReply, textChoiceOf } from '../../src/core/prompt.js';
import { prepareMessage } from '../../src/sessions/delivery.js';
import { MAX_UPLOAD_BYTES, saveUploads } from '../../src/sessions/uploads.js';

let dir: string;
let outputs: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-attach-'));
  outputs = path.join(dir, 'outputs');
  mkdirSync(path.join(outputs, 'sub'), { recursive: true });
  writeFileSync(path.join(outputs, 'report.txt'), 'report');
  writeFileSync(path.join(outputs, 'sub', 'chart.png'), 'png');
  writeFileSync(path.join(dir, 'secret.txt'), 'secret');
  symlinkSync(path.join(dir, 'secret.txt'), path.join(outputs, 'link.txt'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('[ATTACH: path] markers', () => {
  it('takes markers (and seed 001 DISCORD_ATTACH ones) out of the text', () => {
    expect(extractAttachMarkers('Done.\n\n[ATTACH: report.txt]\n[DISCORD_ATTACH: sub/chart.png]')).toEqual({
      text: 'Done.',
      paths: ['report.txt', 'sub/chart.png'],
    });
    expect(extractAttachMarkers('no markers [here]')).toEqual({ text: 'no markers [here]', paths: [] });
  });

  it('sends files from inside the outputs folder only: .., absolute paths and symlinks out are refused', () => {
    const prepared = prepareMessage(
      'See [ATTACH: report.txt] [ATTACH: sub/chart.png] [ATTACH: ../secret.txt] [ATTACH: /etc/passwd] [ATTACH: link.txt] [ATTACH: nope.txt]',
      outputs,
    );
    expect(prepared.files.map((f) => [f.name, f.data.toString()])).toEqual([
      ['report.txt', 'report'],
      ['chart.png', 'png'],
    ]);
    expect(prepared.refused).toEqual([
      { path: '../secret.txt', reason: 'outside the outputs folder' },
      { path: '/etc/passwd', reason: 'outside the outputs folder' },
      { path: 'link.txt', reason: 'outside the outputs folder (a link leads out)' },
      { path: 'nope.txt', reason: 'no such file' },
    ]);
    expect(prepared.text).toBe('See');
  });
});

describe('uploads', () => {
  it('saves files under unique names and returns the words then the paths', async () => {
    const file = (name: string, text: string) => ({
      fileName: name,
      size: text.length,
      download: async () => Buffer.from(text),
    });
    const saved = await saveUploads(
      [file('a.txt', 'one'), file('a.txt', 'two'), file('../../evil.sh', 'x')],
      path.join(dir, 'up'),
      'look at these',
    );
    if (!saved.ok) throw new Error(saved.reason);
    expect(saved.paths.map((p) => path.basename(p))).toEqual(['a.txt', 'a-2.txt', 'evil.sh']);
    expect(saved.input).toBe(['look at these', ...saved.paths].join('\n'));
    for (const p of saved.paths) expect(p.startsWith(path.join(dir, 'up'))).toBe(true);
  });

  it('refuses a file over 50 MB before downloading anything', async () => {
    let downloaded = false;
    const saved = await saveUploads(
      [
        {
          fileName: 'huge.bin',
          size: MAX_UPLOAD_BYTES + 1,
          download: async () => ((downloaded = true), Buffer.alloc(0)),
        },
      ],
      path.join(dir, 'up'),
    );
    expect(saved).toEqual({ ok: false, reason: 'huge.bin is too large (50 MB): the limit is 50 MB' });
    expect(downloaded).toBe(false);
  });
});

describe('typed words for a prompt with choices ("Other…")', () => {
  const permission = {
    kind: 'permission' as const,
    choices: [
      { number: 1, label: 'Yes' },
      { number: 2, label: 'No' },
    ],
  };
  const question = {
    kind: 'question' as const,
    choices: [
      { number: 1, label: 'Red' },
      { number: 2, label: 'Type something.' },
    ],
  };
  it('a permission takes words as "No, because…"; a question as its "Type something." answer', () => {
    expect(textChoiceOf(permission)).toBe(2);
    expect(parseReply('use the staging db instead', permission)).toEqual({
      type: 'choice',
      number: 2,
      text: 'use the staging db instead',
    });
    expect(parseReply('Magenta', question)).toEqual({ type: 'choice', number: 2, text: 'Magenta' });
    expect(parseReply('yes', permission)).toEqual({ type: 'choice', number: 1 });
  });
  it('a menu without such a choice still refuses words', () => {
    expect(() =>
      parseReply('hmm', { kind: 'multiple_choice', choices: [{ number: 1, label: 'A' }] }),
    ).toThrow(/answer with a choice/);
  });
});
