/**
 * Files an agent asks to send: `[ATTACH: relative/path]` in its message (seed 001's `[DISCORD_ATTACH: f]` is
 * understood too). The markers are taken out of the text; where the paths may lead is checked elsewhere.
 */
const MARKER = /\[(?:DISCORD_)?ATTACH:\s*([^\]\n]+?)\s*\]/g;

export interface AttachRequest {
  text: string;
  paths: string[];
}

export function extractAttachMarkers(message: string): AttachRequest {
  const paths: string[] = [];
  const text = message.replace(MARKER, (_, file: string) => {
    if (!paths.includes(file)) paths.push(file);
    return '';
  });
  return { text: paths.length > 0 ? text.replace(/\n{3,}/g, '\n\n').trim() : message, paths };
}
