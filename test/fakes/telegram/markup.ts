// reply_markup validation and the comparisons behind "message is not modified".
import type { TgReplyMarkup } from './types.js';
import { badRequest } from './wire.js';

const BUTTON_ACTIONS = [
  'callback_data',
  'url',
  'login_url',
  'web_app',
  'switch_inline_query',
  'switch_inline_query_current_chat',
  'switch_inline_query_chosen_chat',
  'copy_text',
  'callback_game',
  'pay',
];

function validateButton(button: unknown): void {
  if (typeof button !== 'object' || button === null)
    throw badRequest("can't parse inline keyboard button: InlineKeyboardButton must be an Object");
  const fields = button as Record<string, unknown>;
  if (typeof fields.text !== 'string')
    throw badRequest('can\'t parse inline keyboard button: Field "text" must be of type String');
  if (!BUTTON_ACTIONS.some((action) => fields[action] !== undefined))
    throw badRequest("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard");
  if (fields.callback_data !== undefined) {
    const bytes = Buffer.byteLength(String(fields.callback_data));
    if (typeof fields.callback_data !== 'string' || bytes < 1 || bytes > 64)
      throw badRequest('BUTTON_DATA_INVALID');
  }
  if (fields.url !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(String(fields.url));
    } catch {
      url = undefined;
    }
    // Telegram refuses local addresses in buttons ("Wrong HTTP URL"): a real gotcha for local web UIs.
    const local = url && /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0)$/i.test(url.hostname);
    if (!url || !/^(https?|tg):$/.test(url.protocol) || local)
      throw badRequest(`inline keyboard button URL '${String(fields.url)}' is invalid: Wrong HTTP URL`);
  }
}

/**
 * Validates reply_markup. Returns the inline keyboard (the only markup Telegram echoes back on a
 * Message and the only one edits compare) or undefined for none / other keyboards.
 */
export function inlineMarkupOf(markup: unknown): TgReplyMarkup | undefined {
  if (markup === undefined || markup === null) return undefined;
  if (typeof markup !== 'object' || Array.isArray(markup))
    throw badRequest("can't parse reply keyboard markup JSON object");
  const keyboard = (markup as TgReplyMarkup).inline_keyboard;
  if (keyboard === undefined) return undefined;
  if (!Array.isArray(keyboard) || keyboard.some((row) => !Array.isArray(row)))
    throw badRequest('field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays');
  for (const row of keyboard) for (const button of row) validateButton(button);
  const rows = keyboard.filter((row) => row.length > 0);
  return rows.length > 0 ? { inline_keyboard: rows } : undefined;
}

/** JSON with sorted keys, so equal objects compare equal whatever order their keys were sent in. */
export function stable(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b)))
      : inner,
  );
}

/** Buttons carrying this callback_data, if the message currently shows any. */
export function hasButton(markup: TgReplyMarkup | undefined, data: string): boolean {
  return (markup?.inline_keyboard ?? []).some((row) => row.some((button) => button.callback_data === data));
}
