import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FakeTelegram, FakeMessage } from '../fakes/telegram/server.js';

export const OWNER = 4242;
export const STRANGER = 999;

/** Writes agent-bridge.yaml in the data folder: the fake bot, one allowed user. */
export function writeTelegramConfig(dataDir: string, fake: FakeTelegram, extra = ''): string {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'agent-bridge.yaml');
  writeFileSync(
    file,
    `channels:\n  telegram:\n    token: "${fake.token}"\n    allowed_users: [${OWNER}]\n    api_root: ${fake.apiRoot}\n${extra}`,
    { mode: 0o600 },
  );
  return file;
}

/** The callback data of the button whose label starts with `label`. */
export function buttonData(message: FakeMessage, label: string): string {
  const buttons = (message.reply_markup?.inline_keyboard ?? []).flat();
  const button = buttons.find((b) => b?.text.startsWith(label));
  if (!button?.callback_data)
    throw new Error(`no button "${label}" in ${JSON.stringify(buttons.map((b) => b?.text))}`);
  return button.callback_data;
}

export function hasButtons(message: FakeMessage): boolean {
  return (message.reply_markup?.inline_keyboard ?? []).flat().length > 0;
}
