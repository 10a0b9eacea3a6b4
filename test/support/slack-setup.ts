import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SlackChannel, type SlackOptions } from '../../src/channels/slack/slack-channel.js';
import type { FakeSlack, FakeSlackMessage, Json } from '../fakes/slack/server.js';

/** Member ids: the owner (allowed), a stranger (not allowed); the channel mapped to the repository. */
export const OWNER = 'U0OWNER001';
export const STRANGER = 'U0STRANGE1';
export const CHANNEL = 'C0PROJ0001';

/** A Slack channel on the fake: quick reconnects and retries, so faults resolve within a test. */
export function slackChannelFor(fake: FakeSlack, options: Partial<SlackOptions> = {}): SlackChannel {
  return new SlackChannel({
    token: fake.token,
    appToken: fake.appToken,
    apiRoot: fake.apiRoot,
    reconnectDelayMs: 200,
    retryConfig: { retries: 8, factor: 1, minTimeout: 50, maxTimeout: 100 },
    ...options,
  });
}

/**
 * Writes agent-bridge.yaml in the data folder: the fake app, one allowed user, `proj` mapped to CHANNEL and run
 * by Claude Code; `repoLines` replace the agent line (another agent, thread settings).
 */
export function writeSlackConfig(
  dataDir: string,
  fake: FakeSlack,
  project: string,
  repoLines: string[] = ['    agent: claude'],
): string {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'agent-bridge.yaml');
  writeFileSync(
    file,
    [
      'channels:',
      '  slack:',
      `    token: ${fake.token}`,
      `    app_token: ${fake.appToken}`,
      `    allowed_users: [${OWNER}]`,
      `    api_root: ${fake.apiRoot}`,
      'repos:',
      '  - name: proj # the project',
      `    dir: ${project}`,
      ...repoLines,
      `    channels: { slack: [${CHANNEL}] }`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return file;
}

export interface ShownButton {
  label: string;
  actionId: string;
}

/** The buttons a message (or an App Home) shows now, in order. */
export function buttonsOf(message: { blocks: Json[] } | Json[] | undefined): ShownButton[] {
  const blocks = Array.isArray(message) ? message : (message?.blocks ?? []);
  return blocks.flatMap((block) =>
    block['type'] === 'actions'
      ? (block['elements'] as Json[]).map((b) => ({
          label: String((b['text'] as Json)['text']),
          actionId: String(b['action_id']),
        }))
      : [],
  );
}

export function hasButtons(message: FakeSlackMessage): boolean {
  return buttonsOf(message).length > 0;
}

/** The action_id of the button labelled exactly `label`. */
export function buttonId(message: { blocks: Json[] } | Json[] | undefined, label: string): string {
  const button = buttonsOf(message).find((b) => b.label === label);
  if (!button) throw new Error(`no button "${label}" in ${JSON.stringify(buttonsOf(message))}`);
  return button.actionId;
}

/** All the text a message shows: its fallback and every block's text. */
export function shownText(message: FakeSlackMessage): string {
  const texts: string[] = [message.text];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (!value || typeof value !== 'object') return;
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'text' && typeof inner === 'string') texts.push(inner);
      else walk(inner);
    }
  };
  walk(message.blocks);
  return texts.join('\n');
}

/** Messages only `user` sees (ephemeral answers). */
export function ephemeralTo(fake: FakeSlack, user: string): FakeSlackMessage[] {
  return fake.messages.filter((m) => m.ephemeralFor === user);
}
