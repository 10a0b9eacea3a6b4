import { createInterface } from 'node:readline/promises';
import path from 'node:path';
import { editConfigFile } from '../../config/edit.js';
import { CONFIG_FILE_NAME, findConfigFile } from '../../config/load.js';
import { TELEGRAM_API_ROOT } from '../../channels/telegram/telegram-channel.js';
import { dataDir } from '../../store/paths.js';
import { CliFailure, UsageError } from '../errors.js';
import { stdoutTarget, type OutputTarget } from '../output.js';

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
  if (!/^\d+:[\w-]{20,}$/.test(token))
    throw new UsageError(
      'that does not look like a bot token (digits, a colon, then letters): get one from @BotFather',
    );
  const users = options.user?.length
    ? options.user
    : (await ask('Your Telegram user id (numbers; ask @userinfobot): ')).split(/[\s,]+/);
  const ids = users.filter(Boolean);
  if (ids.length === 0 || ids.some((id) => !/^\d+$/.test(id)))
    throw new UsageError('user ids are numbers, e.g. 123456789: ask @userinfobot for yours');
  const apiRoot = options.apiRoot ?? TELEGRAM_API_ROOT;
  const botName = await checkToken(token, apiRoot);
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

async function checkToken(token: string, apiRoot: string): Promise<string> {
  const { Api } = await import('grammy');
  try {
    const me = await new Api(token, { apiRoot }).getMe();
    return me.username;
  } catch (error) {
    const code = (error as { error_code?: number }).error_code;
    if (code === 401 || code === 404)
      throw new CliFailure('Telegram refused that token (401 Unauthorized): copy it again from @BotFather');
    throw new CliFailure(
      `could not reach Telegram at ${apiRoot}: ${(error as Error).message.split('\n')[0]}`,
    );
  }
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
