import { TELEGRAM_API_ROOT } from '../channels/telegram/telegram-channel.js';
import { CliFailure } from './errors.js';

/** Discord's REST root (discord.js's default), or a local fake given as `api_root`. */
export const DISCORD_API_ROOT = 'https://discord.com/api';
/** Slack's Web API root, or a local fake given as `api_root`. */
export const SLACK_API_ROOT = 'https://slack.com/api/';

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

/**
 * Who the bot is when Slack accepts both tokens: the bot token (auth.test) and the app-level token Socket Mode
 * connects with (apps.connections.open); a CliFailure saying which was refused and what to do otherwise.
 */
export async function slackBotIdentity(
  token: string,
  appToken: string,
  apiRoot = SLACK_API_ROOT,
): Promise<{ user: string; team: string }> {
  const { webApi } = await import('@slack/bolt');
  const client = (key: string) =>
    new webApi.WebClient(key, {
      slackApiUrl: apiRoot,
      retryConfig: { retries: 1 },
      timeout: CHECK_TIMEOUT_MS,
    });
  const refused = (what: string, error: unknown): never => {
    const code = (error as { data?: { error?: string } }).data?.error;
    if (code)
      throw new CliFailure(`Slack refused the ${what} (${code}): ${HOW_TO_FIX[code] ?? 'copy it again'}`);
    throw new CliFailure(`could not reach Slack at ${apiRoot}: ${firstLine(error)}`);
  };
  const me = await client(token)
    .auth.test()
    .catch((error: unknown) => refused('bot token', error));
  await client(appToken)
    .apps.connections.open()
    .catch((error: unknown) => refused('app-level token', error));
  return { user: String(me.user ?? 'agent-bridge'), team: String(me.team ?? '?') };
}

const HOW_TO_FIX: Record<string, string> = {
  invalid_auth: 'copy it again from the app settings',
  not_authed: 'copy it again from the app settings',
  token_revoked: 'the app was uninstalled or the token reissued: reinstall the app and copy the new token',
  account_inactive: 'the app was uninstalled: reinstall it to the workspace',
  not_allowed_token_type: 'the bot token starts with xoxb-, the app-level token with xapp-',
  missing_scope: 'the app-level token needs the connections:write scope',
};

const firstLine = (error: unknown) => (error as Error).message.split('\n')[0];
