/**
 * The frames between `agent-bridge run` (which shares its session's screen) and `serve` (which shows it in
 * browsers), over a unix socket as WebSocket messages:
 *
 * run → serve: text `{"type":"hello","cols","rows","canType","screen"}` first (ANSI that redraws the screen),
 * then binary frames of output, `{"type":"size","cols","rows"}` when the terminal was resized,
 * `{"type":"screen","data"}` after a redraw was asked for, and `{"type":"exit","exitCode","signal"}`.
 *
 * serve → run: `{"type":"input","data"}` (taken only with `run --web-input`), `{"type":"redraw"}`,
 * `{"type":"stop"}` (only with `--web-input`).
 */

/** A screen with its scrollback fits; nothing a viewer sends comes near. */
export const SHARE_FRAME_LIMIT = 16 * 1024 * 1024;
const MAX_INPUT_CHARS = 64 * 1024;

export type ShareRequest = { type: 'input'; data: string } | { type: 'redraw' } | { type: 'stop' };

export type ShareFrame =
  | { type: 'hello'; cols: number; rows: number; canType: boolean; screen: string }
  | { type: 'screen'; data: string }
  | { type: 'size'; cols: number; rows: number }
  | { type: 'exit'; exitCode: number | null; signal: string | null };

export function parseShareRequest(text: string): ShareRequest | null {
  const message = parseObject(text);
  if (!message) return null;
  if (message.type === 'input' && typeof message.data === 'string' && message.data.length <= MAX_INPUT_CHARS)
    return { type: 'input', data: message.data };
  if (message.type === 'redraw' || message.type === 'stop') return { type: message.type };
  return null;
}

export function parseShareFrame(text: string): ShareFrame | null {
  const message = parseObject(text);
  if (!message) return null;
  const size = isCount(message.cols) && isCount(message.rows);
  switch (message.type) {
    case 'hello':
      return size && typeof message.screen === 'string'
        ? {
            type: 'hello',
            cols: message.cols as number,
            rows: message.rows as number,
            canType: message.canType === true,
            screen: message.screen,
          }
        : null;
    case 'screen':
      return typeof message.data === 'string' ? { type: 'screen', data: message.data } : null;
    case 'size':
      return size ? { type: 'size', cols: message.cols as number, rows: message.rows as number } : null;
    case 'exit':
      return {
        type: 'exit',
        exitCode: typeof message.exitCode === 'number' ? message.exitCode : null,
        signal: typeof message.signal === 'string' ? message.signal : null,
      };
    default:
      return null;
  }
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 10_000;
}
