import { createUser, fromSeed } from '@nats-io/nkeys';
import {
  COMMANDS_STREAM,
  DEFAULT_HUB,
  EVENTS_STREAM,
  hubConsumer,
  nameProblem,
  nodeConsumer,
  subjects,
} from './names.js';

/** A user's key: the seed stays on its machine (a file, 0600), the server's config holds the public key. */
export interface UserKey {
  seed: string;
  publicKey: string;
}

export function newUserKey(): UserKey {
  const pair = createUser();
  return { seed: new TextDecoder().decode(pair.getSeed()), publicKey: pair.getPublicKey() };
}

/** The public key of a seed (a file written by `cluster init`), to list it in the server's config. */
export function publicKeyOf(seed: string): string {
  return fromSeed(new TextEncoder().encode(seed.trim())).getPublicKey();
}

export interface ServerConfigOptions {
  /** Where clients connect: `host` and `port` (default 0.0.0.0:4222). */
  host?: string;
  port?: number;
  /** JetStream's folder: the durable streams live here. */
  storeDir: string;
  hubs: Array<{ name: string; publicKey: string }>;
  nodes: Array<{ name: string; publicKey: string }>;
  /** The server's certificate and key (PEM); with them, clients must speak TLS. */
  tls?: { cert: string; key: string };
}

/**
 * A nats-server configuration for agent-bridge: JetStream on, no anonymous clients (every user is an nkey),
 * and per-user permissions. A node may publish only its own events (`ab.ev.<node>.>`) and read only its own
 * commands, through its own durable consumer; it cannot read the events stream at all, nor another node's
 * commands, nor publish a command. Hubs publish commands and read every node's events.
 */
export function serverConfig(options: ServerConfigOptions): string {
  for (const { name } of [...options.hubs, ...options.nodes]) {
    const problem = nameProblem(name);
    if (problem) throw new Error(problem);
  }
  const users = [...options.hubs.map(hubUser), ...options.nodes.map(nodeUser)];
  const lines = [
    '# nats-server configuration for agent-bridge (written by `agent-bridge cluster init`).',
    `host: ${JSON.stringify(options.host ?? '0.0.0.0')}`,
    `port: ${options.port ?? 4222}`,
    'max_payload: 1MB',
    `jetstream { store_dir: ${JSON.stringify(options.storeDir)} }`,
    ...(options.tls
      ? [
          'tls {',
          `  cert_file: ${JSON.stringify(options.tls.cert)}`,
          `  key_file: ${JSON.stringify(options.tls.key)}`,
          '  timeout: 5',
          '}',
        ]
      : []),
    '# No anonymous clients: every connection presents one of these keys.',
    'authorization {',
    '  users: [',
    ...users.map((user) => indent(user, 4)),
    '  ]',
    '}',
    '',
  ];
  return lines.join('\n');
}

function hubUser(hub: { name: string; publicKey: string }): string {
  const inbox = subjects.inbox(hub.name);
  return permissionsBlock(`hub ${hub.name}`, hub.publicKey, {
    publish: [
      subjects.allCommands,
      'ab.ping.>',
      '$JS.API.>',
      `$JS.ACK.${EVENTS_STREAM}.${hubConsumer(hub.name)}.>`,
    ],
    subscribe: [`${inbox}.>`],
    responses: false,
  });
}

function nodeUser(node: { name: string; publicKey: string }): string {
  const consumer = nodeConsumer(node.name);
  return permissionsBlock(`node ${node.name}`, node.publicKey, {
    publish: [
      subjects.nodeEvents(node.name),
      '$JS.API.INFO',
      // Its own durable consumer, only with its own commands as the filter (the server checks the body too).
      `$JS.API.CONSUMER.CREATE.${COMMANDS_STREAM}.${consumer}.${subjects.nodeCommands(node.name)}`,
      `$JS.API.CONSUMER.INFO.${COMMANDS_STREAM}.${consumer}`,
      `$JS.API.CONSUMER.MSG.NEXT.${COMMANDS_STREAM}.${consumer}`,
      `$JS.ACK.${COMMANDS_STREAM}.${consumer}.>`,
    ],
    subscribe: [`${subjects.inbox(node.name)}.>`, subjects.ping(node.name)],
    // It answers pings, and only through the reply subject it was given.
    responses: true,
  });
}

function permissionsBlock(
  who: string,
  publicKey: string,
  allow: { publish: string[]; subscribe: string[]; responses: boolean },
): string {
  const list = (items: string[]) => `[${items.map((s) => JSON.stringify(s)).join(', ')}]`;
  return [
    `# ${who}`,
    '{',
    `  nkey: ${publicKey}`,
    '  permissions: {',
    `    publish: { allow: ${list(allow.publish)} }`,
    `    subscribe: { allow: ${list(allow.subscribe)} }`,
    ...(allow.responses ? ['    allow_responses: { max: 1, expires: "1m" }'] : []),
    '  }',
    '}',
  ].join('\n');
}

function indent(text: string, spaces: number): string {
  const pad = ' '.repeat(spaces);
  return text
    .split('\n')
    .map((line) => pad + line)
    .join('\n');
}

export { DEFAULT_HUB };
