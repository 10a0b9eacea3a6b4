import { describe, expect, it } from 'vitest';
import { OutputExtractor } from '../../src/drivers/terminal/output-extractor.js';
import { ScreenModel } from '../../src/drivers/terminal/screen.js';
import { FakeClock } from '../support/fake-clock.js';

async function setup() {
  const screen = new ScreenModel({ cols: 40, rows: 6, clock: new FakeClock() });
  const extractor = new OutputExtractor(screen);
  const write = async (text: string) => {
    screen.feed(Buffer.from(text));
    await screen.catchUp();
  };
  return { screen, extractor, write };
}

describe('clean output from the rendered screen', () => {
  it('gives finished lines once, without colours or cursor tricks', async () => {
    const { extractor, write } = await setup();
    await write('\x1b[32mgreen\x1b[0m line\r\nprogress 10%\rprogress 100%\r\n$ ');
    expect(extractor.take()).toBe('green line\nprogress 100%');
    expect(extractor.take()).toBe('');
    await write('ls\r\nREADME.md\r\n$ ');
    expect(extractor.take()).toBe('$ ls\nREADME.md');
  });

  it('keeps lines that scrolled off the screen', async () => {
    const { extractor, write } = await setup();
    await write(Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\r\n') + '\r\n');
    const text = extractor.take().split('\n');
    expect(text[0]).toBe('line 1');
    expect(text.at(-1)).toBe('line 20');
  });

  it('keeps going after the scrollback is full (the buffer trims its oldest lines)', async () => {
    const { extractor, write } = await setup();
    const taken: string[] = [];
    for (let i = 1; i <= 3000; i++) {
      await write(`line ${i}\r\n`);
      if (i % 7 === 0) taken.push(...extractor.take().split('\n').filter(Boolean));
    }
    taken.push(...extractor.take().split('\n').filter(Boolean));
    expect(taken).toHaveLength(3000);
    expect(taken[0]).toBe('line 1');
    expect(taken.at(-1)).toBe('line 3000');
    expect(new Set(taken).size).toBe(3000);
  });

  it('leaves out the echo of what was typed for someone', async () => {
    const { extractor, write } = await setup();
    extractor.typedLine('echo hi');
    await write('$ echo hi\r\nhi\r\n$ ');
    expect(extractor.take()).toBe('hi');
  });

  it('keeps an answer that ends with the typed words (it is not their echo)', async () => {
    const { extractor, write } = await setup();
    extractor.typedLine('m3');
    await write('m3\r\nagent got: m3\r\n');
    expect(extractor.take()).toBe('agent got: m3');
  });

  it('gives nothing from a full-screen program', async () => {
    const { extractor, write } = await setup();
    await write('\x1b[?1049hmenu\r\nmore\r\n');
    expect(extractor.take()).toBe('');
  });
});
