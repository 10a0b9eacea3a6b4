/**
 * Hides secrets before text reaches the store, the audit log, a chat or the web: provider keys and tokens,
 * credentials in headers and URLs, `NAME_KEY=` / `*_SECRET=` / `*_TOKEN=` / `PASSWORD=` assignments and
 * private key blocks. Rules find spans; each span becomes `[redacted]`. Text read off a terminal is redacted
 * on its logical lines (rows the terminal wrapped joined again: redactWrappedRows), so a token split across
 * rows is found whole. Patterns stay linear on hostile input: no nested quantifiers, names of bounded length.
 */
export const REDACTED = '[redacted]';

export interface SecretRule {
  name: string;
  /** Global, with indices (`d`) when `group` is given. */
  pattern: RegExp;
  /** The capture group that is the secret (the rest, such as `Bearer `, stays); the whole match if absent. */
  group?: number;
  /** A second look at what the pattern found, where the pattern alone would take ordinary text. */
  accept?: (found: string) => boolean;
}

/** Random text mixes letter cases and digits; a line of `xxxx` or `====` does not. */
function looksRandom(text: string): boolean {
  return [/[a-z]/, /[A-Z]/, /[0-9]/].filter((kind) => kind.test(text)).length >= 2;
}

/** Characters a token may be made of: a secret runs until none follows. */
const TOKEN_END = '(?![A-Za-z0-9_-])';

export const SECRET_RULES: readonly SecretRule[] = [
  {
    name: 'private key block',
    pattern:
      /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  },
  // The body of a key or certificate seen without its BEGIN line (scrolled away, or in a later chunk).
  {
    name: 'base64 key body line',
    pattern: /^[ \t]*([A-Za-z0-9+/]{60,}={0,2})[ \t]*$/dgm,
    group: 1,
    accept: looksRandom,
  },
  // Anthropic (sk-ant-), OpenAI (sk-, sk-proj-, sk-svcacct-) and their restricted keys.
  { name: 'sk- key', pattern: new RegExp(`(?<![A-Za-z0-9_-])(?:sk|rk)-[A-Za-z0-9_-]{20,}`, 'g') },
  { name: 'Stripe key', pattern: /(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}/g },
  { name: 'Stripe webhook secret', pattern: /(?<![A-Za-z0-9_])whsec_[A-Za-z0-9]{20,}/g },
  { name: 'GitHub token', pattern: /(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{30,}/g },
  { name: 'GitHub fine-grained token', pattern: /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{30,}/g },
  { name: 'GitLab token', pattern: /(?<![A-Za-z0-9_-])gl(?:pat|dt|rt|ptt|soat|cbt)-[A-Za-z0-9_-]{20,}/g },
  { name: 'npm token', pattern: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{30,}/g },
  { name: 'Slack token', pattern: /(?<![A-Za-z0-9_-])xox[abposre]-[A-Za-z0-9-]{10,}/g },
  { name: 'Slack app token', pattern: /(?<![A-Za-z0-9_-])xapp-[A-Za-z0-9-]{10,}/g },
  { name: 'Slack webhook', pattern: /hooks\.slack\.com\/services\/[A-Za-z0-9/_-]{10,}/g },
  // Telegram: the bot's id, a colon, 35 characters (a few more or less accepted); found inside URLs too
  // (`/bot<token>/getMe`).
  {
    name: 'Telegram bot token',
    pattern: new RegExp(`(?<![0-9])[0-9]{8,10}:[A-Za-z0-9_-]{30,40}${TOKEN_END}`, 'g'),
  },
  { name: 'AWS access key id', pattern: /(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])/g },
  { name: 'Google API key', pattern: new RegExp(`(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}${TOKEN_END}`, 'g') },
  { name: 'Discord bot token', pattern: /(?<![\w-])[MN][A-Za-z\d]{23,}\.[\w-]{6}\.[\w-]{27,}/g },
  { name: 'JWT', pattern: /(?<![\w-])eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g },
  {
    name: 'password in a URL',
    pattern: /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s:/?#@]*:([^\s/?#@]+)@/dg,
    group: 1,
  },
  { name: 'Bearer credential', pattern: /\bBearer[ \t]+([A-Za-z0-9._~+/-]{8,}=*)/dgi, group: 1 },
  {
    name: 'Basic credential',
    pattern: /\bAuthorization:[ \t]*Basic[ \t]+([A-Za-z0-9+/]{4,}={0,2})/dgi,
    group: 1,
  },
  {
    name: 'secret command-line option',
    pattern:
      /(?<![\w-])--[A-Za-z0-9-]*(?:password|passwd|passphrase|token|secret|api-key|apikey)(?:=|[ \t]+)(?!-)([^\s"'`]+)/dgi,
    group: 1,
  },
];

/**
 * `NAME=value`, `NAME: value`, `"name": "value"`, where the name says it holds a secret: it ends in secret,
 * token, password, passwd, pwd, passphrase, credential(s), auth, or is `<something>_KEY` / `apiKey`. Plain
 * `key`, `tokens` or `max_tokens` are not secrets. Type names (`password: string`) are left alone.
 */
const ASSIGNMENT = /(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_.-]{0,200})["']?[ \t]*[:=](?![=:>])[ \t]*/g;
/** The value after a secret name: quoted (an unfinished quote too), or up to a space, quote or `;`. */
const ASSIGNED_VALUE = /"([^"\n]{1,500})"|'([^'\n]{1,500})'|["']?([^\s"'`;]+)/dy;
const SECRET_NAME_ENDS = new Set([
  'secret',
  'secrets',
  'token',
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'credential',
  'credentials',
  'auth',
  'apikey',
  'accesskey',
  'secretkey',
  'privatekey',
]);
const NOT_A_VALUE = new Set([
  'string',
  'number',
  'boolean',
  'null',
  'undefined',
  'true',
  'false',
  'none',
  'str',
]);

export function isSecretName(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[_.-]+/)
    .filter(Boolean);
  const last = words.at(-1) ?? '';
  return SECRET_NAME_ENDS.has(last) || (last === 'key' && words.length >= 2);
}

export interface SecretSpan {
  start: number;
  end: number;
  rule: string;
}

/** Where the secrets in `text` are: sorted, overlapping spans merged. */
export function secretSpans(text: string): SecretSpan[] {
  const spans: SecretSpan[] = [];
  for (const rule of SECRET_RULES) {
    for (const match of text.matchAll(rule.pattern)) {
      const range = rule.group === undefined ? null : match.indices?.[rule.group];
      const start = range ? range[0] : match.index;
      const end = range ? range[1] : match.index + match[0].length;
      if (end > start && (!rule.accept || rule.accept(text.slice(start, end))))
        spans.push({ start, end, rule: rule.name });
    }
  }
  spans.push(...assignmentSpans(text));
  return mergeSpans(spans);
}

/** Values are read only after a secret name, so text full of `a:b:c` costs one pass. */
function assignmentSpans(text: string): SecretSpan[] {
  const spans: SecretSpan[] = [];
  const names = new RegExp(ASSIGNMENT);
  const values = new RegExp(ASSIGNED_VALUE);
  for (let match = names.exec(text); match; match = names.exec(text)) {
    if (!isSecretName(match[1]!)) continue;
    values.lastIndex = names.lastIndex;
    const found = values.exec(text);
    if (!found) continue;
    names.lastIndex = values.lastIndex;
    const group = [1, 2, 3].find((g) => found[g] !== undefined)!;
    const value = found[group]!;
    if (value === REDACTED || NOT_A_VALUE.has(value.replace(/[,)\]}]+$/, '').toLowerCase())) continue;
    const [start, end] = found.indices![group]!;
    spans.push({ start, end, rule: 'secret assignment' });
  }
  return spans;
}

function mergeSpans(spans: SecretSpan[]): SecretSpan[] {
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: SecretSpan[] = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}

export function redactSecrets(text: string): string {
  const spans = secretSpans(text);
  if (spans.length === 0) return text;
  let result = '';
  let at = 0;
  for (const span of spans) {
    result += text.slice(at, span.start) + REDACTED;
    at = span.end;
  }
  return result + text.slice(at);
}

/** Every string in a JSON-like value redacted (audit fields, hook payloads). */
export function redactDeep<T>(value: T): T {
  if (typeof value === 'string') return redactSecrets(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => redactDeep(item)) as T;
  if (value && typeof value === 'object') {
    const result: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) result[key] = redactDeep(item);
    return result as T;
  }
  return value;
}

/**
 * Rows of a terminal with the secrets of their logical lines hidden. `continues[i]` says row i continues row
 * i-1 (the terminal wrapped a long line there), so a token split across rows is found whole; a secret is
 * replaced where it starts and its characters on later rows are dropped. Rows are otherwise kept as they are.
 */
export function redactWrappedRows(rows: readonly string[], continues: readonly boolean[]): string[] {
  let text = '';
  const rowStarts: number[] = [];
  for (const [i, row] of rows.entries()) {
    if (i > 0 && !continues[i]) text += '\n';
    rowStarts.push(text.length);
    text += row;
  }
  const spans = secretSpans(text);
  if (spans.length === 0) return [...rows];
  const marked = new Set<SecretSpan>();
  return rows.map((row, i) => {
    const from = rowStarts[i]!;
    const to = from + row.length;
    let result = '';
    let at = from;
    for (const span of spans) {
      if (span.end <= from || span.start >= to) continue;
      if (span.start > at) result += text.slice(at, span.start);
      // The marker goes on the first row the secret touches; later rows keep nothing of it.
      if (!marked.has(span)) result += REDACTED;
      marked.add(span);
      at = Math.max(at, Math.min(span.end, to));
    }
    return result + text.slice(at, to);
  });
}

/**
 * Redacts text that arrives in pieces (finished lines read off a terminal): a private key block still open
 * at the end of one piece is hidden in the next ones until its END line.
 */
export class StreamRedactor {
  private insideKeyBlock = false;

  redact(text: string): string {
    const opening = '-----BEGIN PRIVATE KEY-----\n';
    const input = this.insideKeyBlock ? opening + text : text;
    const begin = input.lastIndexOf('-----BEGIN ');
    const end = input.lastIndexOf('-----END ');
    this.insideKeyBlock =
      begin >= 0 && begin > end && /-----BEGIN [A-Z0-9 ]*PRIVATE KEY/.test(input.slice(begin));
    return redactSecrets(input);
  }
}
