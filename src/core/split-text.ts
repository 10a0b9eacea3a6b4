/**
 * Splits text into chat-sized pieces (Discord allows 2,000 characters, Telegram 4,096) at line breaks where
 * it can, and keeps code blocks readable: a piece that ends inside a ``` block closes it, and the next piece
 * reopens it with the same language tag.
 */
export function splitMessage(text: string, limit: number): string[] {
  if (limit < 100) throw new Error('splitMessage: the limit is too small to keep code blocks intact');
  if (text.length <= limit) return [text];
  const pieces: string[] = [];
  let current = '';
  let fence: string | null = null; // the opening line of the code block `current` is inside, if any
  const closing = () => (fence ? '\n```' : '');
  // Room for a reopened fence (at most 30 characters) and a closing one around the longest line.
  for (const line of linesOf(text, limit - 40)) {
    if (current.length + line.length + closing().length > limit && current.trim() !== '') {
      pieces.push(current.replace(/\n$/, '') + closing());
      current = fence ? `${fence}\n` : '';
    }
    current += line;
    const trimmed = line.trim();
    if (trimmed.startsWith('```')) fence = fence ? null : trimmed.slice(0, 30);
  }
  if (current.trim() !== '') pieces.push(current.replace(/\n$/, ''));
  return pieces;
}

/** The text's lines, each with its newline; a line longer than `max` is cut into pieces of `max`. */
function linesOf(text: string, max: number): string[] {
  const lines: string[] = [];
  for (const line of text.match(/[^\n]*\n|[^\n]+$/g) ?? []) {
    for (let start = 0; start < line.length; start += max) lines.push(line.slice(start, start + max));
  }
  return lines;
}
