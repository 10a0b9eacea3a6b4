import path from 'node:path';
import { stringify } from 'yaml';
import { slackManifest } from '../../channels/slack/manifest.js';
import { editConfigFile } from '../../config/edit.js';
import { CONFIG_FILE_NAME, findConfigFile } from '../../config/load.js';
import { dataDir } from '../../store/paths.js';
import { UsageError } from '../errors.js';
import { SLACK_API_ROOT, slackBotIdentity } from '../token-checks.js';
import { stdoutTarget, type OutputTarget } from '../output.js';
import { ask } from './setup.js';

export interface SetupSlackOptions {
  token?: string;
  appToken?: string;
  user?: string[];
  channel?: string[];
  apiRoot?: string;
  config?: string;
  /** Print the app manifest only. */
  manifest?: boolean;
}

const MEMBER = /^[UW][A-Z0-9]{2,31}$/;
const CONVERSATION = /^[CGD][A-Z0-9]{2,31}$/;

/** The manifest as YAML, to paste at api.slack.com/apps (Create New App → From a manifest). */
export function manifestText(): string {
  return stringify(slackManifest(), { lineWidth: 0 });
}

/**
 * `agent-bridge setup slack`: asks for what is missing, checks the bot token (auth.test) and the app-level
 * token (apps.connections.open: Socket Mode is on), writes channels.slack, and prints the app manifest.
 */
export async function setupSlackCommand(
  options: SetupSlackOptions,
  target: OutputTarget = stdoutTarget,
): Promise<void> {
  if (options.manifest) return target.write(manifestText());
  const interactive = !options.token && process.stdin.isTTY;
  if (interactive)
    target.write(
      `Create the Slack app from this manifest (api.slack.com/apps → Create New App → From a manifest), install it to your workspace, then answer below.\n\n${manifestText()}\n`,
    );
  const token =
    options.token ?? (await ask('Bot token (OAuth & Permissions → Bot User OAuth Token, xoxb-…): '));
  if (!/^xoxb-[\w-]{8,}$/.test(token))
    throw new UsageError(
      'that does not look like a Slack bot token: it starts with xoxb- (OAuth & Permissions)',
    );
  const appToken =
    options.appToken ?? (await ask('App-level token (Basic Information → App-Level Tokens, xapp-…): '));
  if (!/^xapp-[\w-]{8,}$/.test(appToken))
    throw new UsageError(
      'that does not look like an app-level token: it starts with xapp- (Basic Information → App-Level Tokens, scope connections:write)',
    );
  const users = options.user?.length
    ? options.user
    : (await ask('Your Slack member id (your profile → ⋮ → Copy member ID, U…): ')).split(/[\s,]+/);
  const ids = users.filter(Boolean);
  if (ids.length === 0 || ids.some((id) => !MEMBER.test(id)))
    throw new UsageError('Slack member ids look like U0123ABCD (your profile → ⋮ → Copy member ID)');
  for (const id of options.channel ?? [])
    if (!CONVERSATION.test(id))
      throw new UsageError(
        `channel ${id}: a Slack channel id looks like C0123ABCD (channel details → Copy channel ID)`,
      );
  const apiRoot = options.apiRoot ?? SLACK_API_ROOT;
  const app = await slackBotIdentity(token, appToken, apiRoot);
  const file =
    findConfigFile(options.config, dataDir()) ?? options.config ?? path.join(dataDir(), CONFIG_FILE_NAME);
  const changes: Array<{ path: string[]; value: unknown }> = [
    { path: ['channels', 'slack', 'token'], value: token },
    { path: ['channels', 'slack', 'app_token'], value: appToken },
    { path: ['channels', 'slack', 'allowed_users'], value: ids },
  ];
  if (options.channel?.length)
    changes.push({ path: ['channels', 'slack', 'channel_ids'], value: options.channel });
  if (options.apiRoot) changes.push({ path: ['channels', 'slack', 'api_root'], value: options.apiRoot });
  editConfigFile(file, changes);
  target.write(
    `Slack app ${app.user} (workspace ${app.team}) is set up for ${ids.join(', ')} in ${file} (readable only by you).\n` +
      `Invite it to a channel (/invite @${app.user}), then map that channel to a repository:\n` +
      `  agent-bridge add-repo --dir . --channel slack:<channel id> && agent-bridge serve\n` +
      (interactive
        ? ''
        : `\nThe app's manifest (api.slack.com/apps → your app → App Manifest; agent-bridge setup slack --manifest prints it alone):\n\n${manifestText()}`),
  );
}
