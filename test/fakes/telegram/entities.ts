// parse_mode handling (HTML, MarkdownV2, legacy Markdown) → plain text + entities, rejecting what
// Telegram rejects with "can't parse entities" (descriptions after that prefix are approximations).
import type { TgEntity } from './types.js';
import { badRequest } from './wire.js';

export interface Formatted {
  text: string;
  entities: TgEntity[];
}

const fail = (what: string): never => {
  throw badRequest(`can't parse entities: ${what}`);
};

const byteOffset = (raw: string, index: number): number => Buffer.byteLength(raw.slice(0, index));

function sortEntities(entities: TgEntity[]): TgEntity[] {
  return entities.filter((e) => e.length > 0).sort((a, b) => a.offset - b.offset || b.length - a.length);
}

export function parseFormatted(raw: string, parseMode: string | undefined): Formatted {
  const mode = parseMode?.toLowerCase();
  if (mode === undefined || mode === '') return { text: raw, entities: [] };
  if (mode === 'html') return parseHtml(raw);
  if (mode === 'markdownv2') return parseMarkdown(raw, true);
  if (mode === 'markdown') return parseMarkdown(raw, false);
  throw badRequest(`unsupported parse_mode`);
}

const HTML_TAGS: Record<string, string> = {
  b: 'bold',
  strong: 'bold',
  i: 'italic',
  em: 'italic',
  u: 'underline',
  ins: 'underline',
  s: 'strikethrough',
  strike: 'strikethrough',
  del: 'strikethrough',
  span: 'spoiler',
  'tg-spoiler': 'spoiler',
  a: 'text_link',
  code: 'code',
  pre: 'pre',
  blockquote: 'blockquote',
  'tg-emoji': 'custom_emoji',
};
const START_TAG =
  /^<([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z-]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*)\s*>/;
const END_TAG = /^<\/([a-zA-Z][a-zA-Z0-9-]*)?\s*>/;
const HTML_ENTITY = /^&(lt|gt|amp|quot|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});/;
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

function attribute(attributes: string, name: string): string | undefined {
  const match = new RegExp(`${name}\\s*=\\s*("([^"]*)"|'([^']*)'|([^\\s"'>]+))`, 'i').exec(attributes);
  return match ? (match[2] ?? match[3] ?? match[4]) : undefined;
}

interface OpenTag {
  tag: string;
  start: number;
  entity: TgEntity | undefined;
}

function parseHtml(raw: string): Formatted {
  let text = '';
  const entities: TgEntity[] = [];
  const open: OpenTag[] = [];
  let i = 0;
  while (i < raw.length) {
    const rest = raw.slice(i, i + 512);
    if (raw[i] === '<') {
      const end = END_TAG.exec(rest);
      if (end) {
        const top = open.pop();
        const tag = (end[1] ?? '').toLowerCase();
        if (!top || top.tag !== tag)
          fail(`Unmatched end tag at byte offset ${byteOffset(raw, i)}, expected "</${top?.tag ?? ''}>"`);
        if (top?.entity) entities.push({ ...top.entity, offset: top.start, length: text.length - top.start });
        i += end[0].length;
        continue;
      }
      const start = START_TAG.exec(rest);
      const tag = start?.[1]?.toLowerCase() ?? '';
      const type = HTML_TAGS[tag];
      if (!start || !type) fail(`Unsupported start tag "${tag}" at byte offset ${byteOffset(raw, i)}`);
      const attributes = start?.[2] ?? '';
      if (tag === 'span' && attribute(attributes, 'class') !== 'tg-spoiler')
        fail(`Tag "span" must have class "tg-spoiler" at byte offset ${byteOffset(raw, i)}`);
      open.push({ tag, start: text.length, entity: htmlEntity(type ?? '', attributes, open) });
      i += start?.[0].length ?? 1;
      continue;
    }
    const entity = raw[i] === '&' ? HTML_ENTITY.exec(rest) : null;
    if (entity?.[1]) {
      const name = entity[1];
      text +=
        NAMED[name] ??
        String.fromCodePoint(Number(name.startsWith('#x') ? `0x${name.slice(2)}` : name.slice(1)));
      i += entity[0].length;
      continue;
    }
    text += raw[i];
    i += 1;
  }
  if (open[0]) fail(`Can't find end tag corresponding to start tag "${open[0].tag}"`);
  return { text, entities: sortEntities(entities) };
}

function htmlEntity(type: string, attributes: string, open: OpenTag[]): TgEntity | undefined {
  if (type === 'text_link') {
    const url = attribute(attributes, 'href');
    return url ? { type, offset: 0, length: 0, url } : undefined;
  }
  const pre = open.at(-1);
  if (type === 'code' && pre?.tag === 'pre' && pre.entity) {
    const language = attribute(attributes, 'class')?.replace(/^language-/, '');
    if (language) pre.entity.language = language;
    return undefined;
  }
  return { type, offset: 0, length: 0 };
}

const V2_RESERVED = '_*[]()~`>#+-=|{}.!';

interface OpenMark {
  type: string;
  start: number;
  at: number;
}

/** Finds the closing `marker`, skipping backslash escapes (MarkdownV2 only). */
function findClosing(raw: string, from: number, marker: string, v2: boolean): number {
  for (let k = from; k < raw.length; k += 1) {
    if (v2 && raw[k] === '\\') k += 1;
    else if (raw.startsWith(marker, k)) return k;
  }
  return -1;
}

function parseMarkdown(raw: string, v2: boolean): Formatted {
  let text = '';
  const entities: TgEntity[] = [];
  const open: OpenMark[] = [];
  let quoteStart: number | undefined;
  let i = 0;
  const toggle = (type: string, width: number): void => {
    const index = open.findLastIndex((mark) => mark.type === type);
    const mark = index >= 0 ? open.splice(index, 1)[0] : undefined;
    if (mark) entities.push({ type, offset: mark.start, length: text.length - mark.start });
    else open.push({ type, start: text.length, at: byteOffset(raw, i) });
    i += width;
  };
  while (i < raw.length) {
    const c = raw[i] ?? '';
    if (c === '\\' && (v2 || '_*`['.includes(raw[i + 1] ?? ' '))) {
      text += raw[i + 1] ?? '';
      i += 2;
    } else if (c === '`') {
      const width = raw.startsWith('```', i) ? 3 : 1;
      const close = findClosing(raw, i + width, width === 3 ? '```' : '`', v2);
      if (close < 0) fail(`Can't find end of the entity starting at byte offset ${byteOffset(raw, i)}`);
      let content = raw.slice(i + width, close);
      let language: string | undefined;
      const newline = content.indexOf('\n');
      if (width === 3 && newline >= 0 && /^[\w+#-]*$/.test(content.slice(0, newline))) {
        language = content.slice(0, newline) || undefined;
        content = content.slice(newline + 1);
      }
      if (v2) content = content.replace(/\\([\\`])/g, '$1');
      const type = width === 3 ? 'pre' : 'code';
      entities.push({ type, offset: text.length, length: content.length, ...(language ? { language } : {}) });
      text += content;
      i = close + width;
    } else if (c === '*') toggle('bold', 1);
    else if (c === '_')
      toggle(v2 && raw[i + 1] === '_' ? 'underline' : 'italic', v2 && raw[i + 1] === '_' ? 2 : 1);
    else if (v2 && c === '~') toggle('strikethrough', 1);
    else if (v2 && c === '|' && raw[i + 1] === '|') toggle('spoiler', 2);
    else if (c === '[') {
      open.push({ type: 'text_link', start: text.length, at: byteOffset(raw, i) });
      i += 1;
    } else if (c === ']' && open.some((mark) => mark.type === 'text_link')) {
      const mark = open.splice(
        open.findLastIndex((m) => m.type === 'text_link'),
        1,
      )[0];
      const close = raw[i + 1] === '(' ? findClosing(raw, i + 2, ')', v2) : -1;
      if (close < 0) fail(`Can't find end of a URL for the entity starting at byte offset ${mark?.at ?? 0}`);
      const url = raw.slice(i + 2, close).replace(/\\([\\)])/g, '$1');
      entities.push({
        type: 'text_link',
        offset: mark?.start ?? 0,
        length: text.length - (mark?.start ?? 0),
        url,
      });
      i = close + 1;
    } else if (v2 && c === '>' && (i === 0 || raw[i - 1] === '\n')) {
      quoteStart ??= text.length;
      i += 1;
    } else if (v2 && V2_RESERVED.includes(c)) {
      fail(`Character '${c}' is reserved and must be escaped with the preceding '\\'`);
    } else {
      if (c === '\n' && quoteStart !== undefined && raw[i + 1] !== '>') {
        entities.push({ type: 'blockquote', offset: quoteStart, length: text.length - quoteStart });
        quoteStart = undefined;
      }
      text += c;
      i += 1;
    }
  }
  if (quoteStart !== undefined)
    entities.push({ type: 'blockquote', offset: quoteStart, length: text.length - quoteStart });
  if (open[0]) fail(`Can't find end of the entity starting at byte offset ${open[0].at}`);
  return { text, entities: sortEntities(entities) };
}

/** The `bot_command` entities Telegram attaches to a user's text (grammY's `bot.command` needs them). */
export function commandEntities(text: string): TgEntity[] {
  const entities: TgEntity[] = [];
  for (const match of text.matchAll(/(?<=^|\s)\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?/g))
    entities.push({ type: 'bot_command', offset: match.index, length: match[0].length });
  return entities;
}
