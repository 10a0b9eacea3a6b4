import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Channel, ChatTarget } from '../channels/contract.js';
import { extractAttachMarkers } from '../core/attach-markers.js';
import { responseFileName } from '../core/output-batcher.js';
import { splitMessage } from '../core/split-text.js';

/** The largest file an agent may send through a marker. */
const MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024;

/** An agent's message made ready for chat: its text, the files it asked to send, and what was refused. */
export interface PreparedMessage {
  text: string;
  files: Array<{ name: string; data: Buffer }>;
  refused: Array<{ path: string; reason: string }>;
}

/**
 * Takes `[ATTACH: path]` markers out of a message and reads the files they name, but only from inside
 * `outputsDir`: a path that leads elsewhere (`..`, an absolute path, a symlink) is refused.
 */
export function prepareMessage(text: string, outputsDir: string | null): PreparedMessage {
  const request = extractAttachMarkers(text);
  const prepared: PreparedMessage = { text: request.text, files: [], refused: [] };
  for (const wanted of request.paths) {
    const resolved = outputsDir
      ? resolveInside(outputsDir, wanted)
      : { error: 'this session has no outputs folder' };
    if ('error' in resolved) prepared.refused.push({ path: wanted, reason: resolved.error });
    else prepared.files.push({ name: path.basename(resolved.file), data: readFileSync(resolved.file) });
  }
  return prepared;
}

function resolveInside(dir: string, wanted: string): { file: string } | { error: string } {
  if (!existsSync(dir)) return { error: 'the outputs folder does not exist' };
  const root = realpathSync(dir);
  const candidate = path.resolve(root, wanted);
  if (!isInside(root, candidate)) return { error: 'outside the outputs folder' };
  if (!existsSync(candidate)) return { error: 'no such file' };
  const real = realpathSync(candidate);
  if (!isInside(root, real)) return { error: 'outside the outputs folder (a link leads out)' };
  const stat = statSync(real);
  if (!stat.isFile()) return { error: 'not a file' };
  if (stat.size > MAX_ATTACHMENT_BYTES) return { error: 'larger than 25 MB' };
  return { file: real };
}

function isInside(root: string, file: string): boolean {
  const relative = path.relative(root, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

/**
 * Sends a prepared message to one chat: text over `threshold` characters as a file (seed 000), shorter text
 * split to the platform's limit with code blocks intact, then the attachments, then a note on refused ones.
 */
export async function sendPrepared(
  channel: Channel,
  chat: ChatTarget,
  message: PreparedMessage,
  options: { threshold: number; now: number; caption: string; footer?: string },
): Promise<void> {
  const footer = options.footer ? `\n📊 ${options.footer}` : '';
  if (message.text.length > options.threshold) {
    await channel.sendFile(
      chat,
      responseFileName(options.now),
      Buffer.from(message.text),
      options.caption + footer,
    );
  } else if (message.text.trim() !== '') {
    for (const piece of splitMessage(message.text + footer, channel.textLimit ?? 4_096))
      await channel.sendText(chat, piece);
  }
  for (const file of message.files) await channel.sendFile(chat, file.name, file.data);
  if (message.refused.length > 0) {
    const lines = message.refused.map((r) => `⚠️ Not sent: ${r.path} (${r.reason})`);
    await channel.sendText(chat, lines.join('\n'));
  }
}
