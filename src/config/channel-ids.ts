/**
 * What a repository's chat id looks like on each channel (`repos[].channels`, `add-repo --channel`): one rule
 * for the file and the command line. No dependencies: the config schema takes it too.
 */

/** An id each channel takes, for the examples in what is said. */
export const CHANNEL_ID_EXAMPLES: Readonly<Record<string, string>> = {
  telegram: '123456789',
  discord: '1122334455',
  slack: 'C0123ABCD',
};

/**
 * Why `id` cannot be a chat of `channel` (Telegram: a number, negative for groups; Discord: a snowflake, digits;
 * Slack: a channel's id, C…/G…/D…, uppercase; any: no spaces), with an example written by `example` (the
 * command line writes `telegram:123456789`); null when it can be. A channel agent-bridge does not know is
 * said elsewhere.
 */
export function channelIdProblem(
  channel: string,
  id: string,
  example: (id: string) => string = (id) => id,
): string | null {
  if ((channel === 'telegram' && !/^-?\d+$/.test(id)) || (channel === 'discord' && !/^\d+$/.test(id)))
    return `a ${channel} id is a number, e.g. ${example(CHANNEL_ID_EXAMPLES[channel]!)}`;
  if (channel === 'slack' && !/^[CGD][A-Z0-9]{2,31}$/.test(id))
    return `a Slack channel id looks like C0123ABCD (channel details → Copy channel ID), e.g. ${example(CHANNEL_ID_EXAMPLES.slack!)}`;
  if (/\s/.test(id)) return 'an id has no spaces';
  return null;
}
