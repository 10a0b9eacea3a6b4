import { SLASH_COMMAND, SLASH_SUBCOMMANDS } from './inbound.js';

/**
 * The Slack app agent-bridge needs, as an app manifest (api.slack.com/apps → Create New App → From a
 * manifest): a bot in Socket Mode, with the events, scopes, interactivity, App Home and slash command it uses.
 */
export function slackManifest(name = 'agent-bridge'): Record<string, unknown> {
  return {
    display_information: {
      name,
      description: 'Drive and supervise the coding agents on your machine',
    },
    features: {
      app_home: {
        home_tab_enabled: true,
        messages_tab_enabled: true,
        messages_tab_read_only_enabled: false,
      },
      bot_user: { display_name: name, always_online: true },
      slash_commands: [
        {
          command: SLASH_COMMAND,
          description: 'Sessions, prompts and agents of agent-bridge',
          usage_hint: SLASH_SUBCOMMANDS.join(' | '),
          should_escape: false,
        },
      ],
    },
    oauth_config: {
      scopes: {
        bot: [
          'channels:history', // messages in public channels it is in
          'groups:history', // ... and private ones
          'im:history', // DMs with the app
          'im:write', // open a DM to send prompts there
          'chat:write', // messages, prompts, their updates, ephemeral answers
          'files:read', // files people post (downloaded with the bot token)
          'files:write', // long answers and [ATTACH: …] files (files.uploadV2)
          'commands', // /agent-bridge
        ],
      },
    },
    settings: {
      event_subscriptions: {
        bot_events: ['message.channels', 'message.groups', 'message.im', 'app_home_opened'],
      },
      interactivity: { is_enabled: true },
      org_deploy_enabled: false,
      socket_mode_enabled: true,
      token_rotation_enabled: false,
    },
  };
}
