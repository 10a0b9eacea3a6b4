import { createInterface } from 'node:readline/promises';
import path from 'node:path';
import { editConfigFile } from '../../config/edit.js';
import { CONFIG_FILE_NAME, findConfigFile } from '../../config/load.js';
import { TELEGRAM_API_ROOT } from '../../channels/telegram/telegram-channel.js';
import { dataDir } from '../../store/paths.js';
import { UsageError } from '../errors.js';
import { telegramBotName } from '../token-checks.js';
import { stdoutTarget, type OutputTarget } from '../output.js';

/** A bot token as @BotFather gives it: the bot's id, a colon, and a secret of 35 characters. */
const TELEGRAM_TOKEN = /^\d+:[\w-]{30,}$/;

export interface SetupTelegramOptions {
  token?: string;
  user?: string[];
  apiRoot?: string;
  config?: string;
}

/** `agent-bridge setup telegram`: asks for what is missing, checks the token with getMe, writes the config (0600). */
export async function setupTelegramCommand(
  options: SetupTelegramOptions,
  target: OutputTarget = stdoutTarget,
): Promise<void> {
  const token = options.token ?? (await ask('Bot token (from @BotFather): '));
  if (!TELEGRAM_TOKEN.test(token))
    throw new UsageError(
      'that is not a whole bot token: @BotFather gives one like 110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw (the bot id, a colon, 35 letters and digits)',
    );
  const users = options.user?.length
    ? options.user
    : (await ask('Your Telegram user id (numbers; ask @userinfobot): ')).split(/[\s,]+/);
  const ids = users.filter(Boolean);
  if (ids.length === 0 || ids.some((id) => !/^\d+$/.test(id)))
    throw new UsageError('user ids are numbers, e.g. 123456789: ask @userinfobot for yours');
  const apiRoot = options.apiRoot ?? TELEGRAM_API_ROOT;
  const botName = await telegramBotName(token, apiRoot);
  const file =
    findConfigFile(options.config, dataDir()) ?? options.config ?? path.join(dataDir(), CONFIG_FILE_NAME);
  const changes: Array<{ path: string[]; value: unknown }> = [
    { path: ['channels', 'telegram', 'token'], value: token },
    { path: ['channels', 'telegram', 'allowed_users'], value: ids.map(Number) },
  ];
  if (options.apiRoot) changes.push({ path: ['channels', 'telegram', 'api_root'], value: options.apiRoot });
  editConfigFile(file, changes);
  target.write(
    `Telegram bot @${botName} is set up for user ${ids.join(', ')} in ${file} (readable only by you).\n` +
      `Send /start to @${botName} once, then: agent-bridge run claude --approve-from telegram\n`,
  );
}

export async function ask(question: string): Promise<string> {
  if (!process.stdin.isTTY)
    throw new UsageError(
      `missing ${question.split(' (')[0]!.toLowerCase().replace(/:$/, '')}: pass it as an option (see --help)`,
    );
  const readline = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return (await readline.question(question)).trim();
  } finally {
    readline.close();
  }
}
