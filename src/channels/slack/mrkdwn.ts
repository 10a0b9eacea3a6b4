/**
 * Text between agent-bridge and Slack. Agents write GitHub markdown; Slack shows `mrkdwn`, its own dialect,
 * where `&`, `<` and `>` are control characters (`<@U123>` mentions someone, `<!channel>` pings everyone):
 * they are always escaped, so nothing an agent writes can mention or link anyone. Code stays code.
 */

/** Slack's own escapes, for text anywhere in a message (code included). */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** GitHub markdown → Slack mrkdwn: bold, strike, links, headings and bullets; code blocks and spans intact. */
export function toMrkdwn(markdown: string): string {
  const out: string[] = [];
  // Fenced blocks (their language tag dropped: Slack would show it as a line), then inline code, then prose.
  const pattern = /```[^\n`]*\n?([\s\S]*?)```|`[^`\n]+`/g;
  let last = 0;
  for (const match of markdown.matchAll(pattern)) {
    out.push(prose(markdown.slice(last, match.index)));
    const code = match[0];
    out.push(
      code.startsWith('```')
        ? '```\n' + escapeMrkdwn(match[1] ?? '').replace(/\n$/, '') + '\n```'
        : escapeMrkdwn(code),
    );
    last = match.index + code.length;
  }
  out.push(prose(markdown.slice(last)));
  return out.join('');
}

const LINK = /\[([^\]\n]{1,300})\]\((https?:\/\/[^\s)]{1,2000})\)/g;

function prose(text: string): string {
  if (!text) return text;
  // Links are set aside first (escaped apart), and put back once the rest is converted.
  const links: string[] = [];
  const marked = text.replace(/\uE000/g, '').replace(LINK, (_, label: string, url: string) => {
    links.push(`<${escapeMrkdwn(url).replace(/\|/g, '%7C')}|${escapeMrkdwn(label)}>`);
    return `\uE000${links.length - 1}\uE000`;
  });
  return escapeMrkdwn(marked)
    .replace(/^#{1,6}\s+(.+?)\s*#*$/gm, '*$1*')
    .replace(/\*\*(?=\S)([^*\n]+?)\*\*/g, '*$1*')
    .replace(/__(?=\S)([^_\n]+?)__/g, '*$1*')
    .replace(/~~(?=\S)([^~\n]+?)~~/g, '~$1~')
    .replace(/^(\s*)[-*+]\s+/gm, '$1• ')
    .replace(/\uE000(\d+)\uE000/g, (_, n: string) => links[Number(n)] ?? '');
}

/** What a person wrote in Slack, as plain text for the agent: mentions and links readable, escapes undone. */
export function fromSlackText(text: string): string {
  return text
    .replace(/<([@#!])([^>|]+)(?:\|([^>]*))?>/g, (_, sigil: string, id: string, label?: string) => {
      if (sigil === '#') return `#${label || id}`;
      if (sigil === '!') return `@${(label || id).replace(/^subteam\^/, '')}`;
      return `@${label || id}`;
    })
    .replace(/<((?:https?|mailto):[^>|]+)(?:\|[^>]*)?>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
