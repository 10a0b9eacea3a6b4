import { TELEGRAM_API_ROOT } from '../channels/telegram/telegram-channel.js';
import { CliFailure } from './errors.js';

/** Discord's REST root (discord.js's default), or a local fake given as `api_root`. */
export const DISCORD_API_ROOT = 'https://discord.com/api';

/** How long a token check waits for the platform before saying it could not reach it. */
const CHECK_TIMEOUT_MS = 15_000;

/** The bot's @name when Telegram accepts the token (getMe); a CliFailure saying what to do otherwise. */
export async function telegramBotName(token: string, apiRoot = TELEGRAM_API_ROOT): Promise<string> {
  const { Api } = await import('grammy');
  try {
    const me = await new Api(token, { apiRoot, timeoutSeconds: CHECK_TIMEOUT_MS / 1000 }).getMe();
    return me.username;
  } catch (error) {
    const code = (error as { error_code?: number }).error_code;
    if (code === 401 || code === 404)
      throw new CliFailure('Telegram refused that token (401 Unauthorized): copy it again from @BotFather');
    throw new CliFailure(`could not reach Telegram at ${apiRoot}: ${firstLine(error)}`);
  }
}

/** The bot's user name when Discord accepts the token (GET /users/@me); a CliFailure saying what to do otherwise. */
export async function discordBotName(token: string, apiRoot = DISCORD_API_ROOT): Promise<string> {
  const { REST, Routes } = await import('discord.js');
  try {
    const rest = new REST({ api: apiRoot, retries: 1, timeout: CHECK_TIMEOUT_MS }).setToken(token);
    const me = (await rest.get(Routes.user())) as { username: string };
    return me.username;
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (status === 401)
      throw new CliFailure('Discord refused that token (401 Unauthorized): reset it and copy it again');
    throw new CliFailure(`could not reach Discord at ${apiRoot}: ${firstLine(error)}`);
  }
}

const firstLine = (error: unknown) => (error as Error).message.split('\n')[0];
