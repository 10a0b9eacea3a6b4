import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FakeDiscord, FakeDiscordMessage, Json } from '../fakes/discord/server.js';

/** Snowflakes: the owner (allowed), a stranger (not allowed) and the channel mapped to the repository. */
export const OWNER = '1400000000000000042';
export const STRANGER = '1400000000000000099';
export const CHANNEL = '1400000000000000100';

/**
 * Writes agent-bridge.yaml in the data folder: the fake bot, one allowed user, `proj` mapped to CHANNEL and run
 * by Claude Code; `repoLines` replace the agent line (another agent, thread settings, comments).
 */
export function writeDiscordConfig(
  dataDir: string,
  fake: FakeDiscord,
  project: string,
  repoLines: string[] = ['    agent: claude'],
): string {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'agent-bridge.yaml');
  writeFileSync(
    file,
    [
      'channels:',
      '  discord:',
      `    token: "${fake.token}"`,
      `    allowed_users: ["${OWNER}"]`,
      `    api_root: ${fake.restApi}`,
      'repos:',
      '  - name: proj # the project',
      `    dir: ${project}`,
      ...repoLines,
      `    channels: { discord: ["${CHANNEL}"] }`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return file;
}

export interface ShownButton {
  label: string;
  customId: string;
}

/** The buttons a message shows now, row by row flattened. */
export function buttonsOf(message: FakeDiscordMessage): ShownButton[] {
  return message.components.flatMap((row) =>
    ((row['components'] as Json[] | undefined) ?? []).map((b) => ({
      label: String(b['label'] ?? ''),
      customId: String(b['custom_id'] ?? ''),
    })),
  );
}

export function hasButtons(message: FakeDiscordMessage): boolean {
  return buttonsOf(message).length > 0;
}

/** The custom_id of the button labelled exactly `label`. */
export function buttonId(message: FakeDiscordMessage, label: string): string {
  const button = buttonsOf(message).find((b) => b.label === label);
  if (!button) throw new Error(`no button "${label}" in ${JSON.stringify(buttonsOf(message))}`);
  return button.customId;
}

/** A bot message that only the person who pressed sees (an ephemeral interaction reply). */
export function ephemeralReplies(fake: FakeDiscord): FakeDiscordMessage[] {
  return fake.messages.filter((m) => m.fromBot && ((m.flags ?? 0) & 64) !== 0);
}
