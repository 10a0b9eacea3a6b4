import path from 'node:path';
import { editConfigFile } from '../../config/edit.js';
import { CONFIG_FILE_NAME, findConfigFile } from '../../config/load.js';
import { dataDir } from '../../store/paths.js';
import { UsageError } from '../errors.js';
import { DISCORD_API_ROOT, discordBotName } from '../token-checks.js';
import { stdoutTarget, type OutputTarget } from '../output.js';
import { ask } from './setup.js';

export interface SetupDiscordOptions {
  token?: string;
  user?: string[];
  channel?: string[];
  general?: string;
  apiRoot?: string;
  config?: string;
}

const SNOWFLAKE = /^\d{5,20}$/;

/** `agent-bridge setup discord`: asks for what is missing, checks the token (GET /users/@me), writes the config. */
export async function setupDiscordCommand(
  options: SetupDiscordOptions,
  target: OutputTarget = stdoutTarget,
): Promise<void> {
  const token = options.token ?? (await ask('Bot token (Developer Portal → your app → Bot → Reset Token): '));
  if (!/^[\w=-]{20,}\.[\w-]{4,}\.[\w=-]{20,}$/.test(token))
    throw new UsageError('that does not look like a Discord bot token (three parts separated by dots)');
  const users = options.user?.length
    ? options.user
    : (await ask('Your Discord user id (Developer Mode on, right-click your name → Copy User ID): ')).split(
        /[\s,]+/,
      );
  const ids = users.filter(Boolean);
  if (ids.length === 0 || ids.some((id) => !SNOWFLAKE.test(id)))
    throw new UsageError('Discord ids are long numbers, e.g. 123456789012345678 (Copy User ID)');
  for (const id of [...(options.channel ?? []), ...(options.general ? [options.general] : [])])
    if (!SNOWFLAKE.test(id))
      throw new UsageError(`channel id ${id}: a Discord id is a long number (Copy Channel ID)`);
  const botName = await discordBotName(token, options.apiRoot ?? DISCORD_API_ROOT);
  const file =
    findConfigFile(options.config, dataDir()) ?? options.config ?? path.join(dataDir(), CONFIG_FILE_NAME);
  const changes: Array<{ path: string[]; value: unknown }> = [
    { path: ['channels', 'discord', 'token'], value: token },
    { path: ['channels', 'discord', 'allowed_users'], value: ids },
  ];
  if (options.channel?.length)
    changes.push({ path: ['channels', 'discord', 'channel_ids'], value: options.channel });
  if (options.general)
    changes.push({ path: ['channels', 'discord', 'general_channel'], value: options.general });
  if (options.apiRoot) changes.push({ path: ['channels', 'discord', 'api_root'], value: options.apiRoot });
  editConfigFile(file, changes);
  target.write(
    `Discord bot ${botName} is set up for user ${ids.join(', ')} in ${file} (readable only by you).\n` +
      `Invite it to your server with the Message Content intent on, then map a channel to a repository:\n` +
      `  agent-bridge add-repo --dir . --channel discord:<channel id> && agent-bridge serve\n`,
  );
}
