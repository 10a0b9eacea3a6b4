import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseFormatted } from './entities.js';
import { startFakeTelegram, type FakeTelegram } from './server.js';
import { parseMultipart } from './wire.js';

const USER = 4242;

describe('fake Telegram wire handling', () => {
  let fake: FakeTelegram;
  beforeEach(async () => {
    fake = await startFakeTelegram();
  });
  afterEach(async () => {
    await fake.close();
  });

  it('parses multipart leniently (bare filename, no space after the colon) and urlencoded bodies', async () => {
    const body = Buffer.from(
      '--XyZ\r\ncontent-disposition:form-data;name="chat_id"\r\n\r\n42\r\n--XyZ\r\n' +
        'content-disposition:form-data;name="f1";filename=a b;c.txt\r\ncontent-type:application/octet-stream\r\n\r\n' +
        'payload\r\n--XyZ--\r\n',
    );
    const parsed = parseMultipart(body, 'XyZ');
    expect(parsed.chat_id).toBe('42');
    expect(parsed.f1).toMatchObject({ filename: 'a b;c.txt' });

    const response = await fetch(`${fake.apiRoot}/bot${fake.token}/sendMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        chat_id: String(USER),
        text: 'form',
        reply_markup: '{"inline_keyboard":[]}',
      }),
    });
    expect(await response.json()).toMatchObject({ ok: true, result: { text: 'form' } });
    const unknown = await fetch(`${fake.apiRoot}/bot${fake.token}/sendPigeon`, { method: 'POST' });
    expect(unknown.status).toBe(404);
  });

  it('parses parse_mode like Telegram: plain text plus entities, or a 400', () => {
    expect(
      parseFormatted('<a href="https://x.dev">x</a> <pre><code class="language-ts">1</code></pre>', 'HTML'),
    ).toEqual({
      text: 'x 1',
      entities: [
        { type: 'text_link', offset: 0, length: 1, url: 'https://x.dev' },
        { type: 'pre', offset: 2, length: 1, language: 'ts' },
      ],
    });
    expect(() => parseFormatted('<b>open', 'HTML')).toThrow(/Can't find end tag/);
    expect(() => parseFormatted('<blink>x</blink>', 'HTML')).toThrow(/Unsupported start tag "blink"/);
    const v2 = parseFormatted('_it_ __u__ ~s~ ||sp|| `c\\\\` [l](https://x.dev/a\\)b) 2\\+2', 'MarkdownV2');
    expect(v2.text).toBe('it u s sp c\\ l 2+2');
    expect(v2.entities.map((e) => e.type)).toEqual([
      'italic',
      'underline',
      'strikethrough',
      'spoiler',
      'code',
      'text_link',
    ]);
    expect(v2.entities.at(-1)?.url).toBe('https://x.dev/a)b');
    expect(() => parseFormatted('`c\\` x', 'MarkdownV2')).toThrow(/Can't find end of the entity/);
    expect(() => parseFormatted('*bold', 'MarkdownV2')).toThrow(/Can't find end of the entity/);
    expect(parseFormatted('1 + 1 = 2 (ok).', 'Markdown').text).toBe('1 + 1 = 2 (ok).');
  });
});
