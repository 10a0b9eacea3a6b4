import { Option, type Command } from 'commander';
import { examples, portNumber } from './command-options.js';

/** Many machines: `agent-bridge cluster init` writes the NATS server's config and every machine's key. */
export function addClusterCommands(program: Command): void {
  const cluster = program
    .command('cluster')
    .description('many machines, one bot and one inbox: a hub and nodes over NATS JetStream')
    .addHelpText('after', examples('agent-bridge cluster init --node laptop --node buildbox'));
  cluster
    .command('init')
    .description(
      "write nats-server's config (JetStream, per-node permissions, no anonymous clients) and a key file per machine",
    )
    .option('--node <name>', 'a node (a machine that hosts agents); repeatable', collect)
    .option(
      '--hub <name>',
      'a hub (hosts the chats and the web UI); repeatable (default: one named hub)',
      collect,
    )
    .option(
      '-o, --out <dir>',
      'the folder to write into (keys already there are kept)',
      'agent-bridge-cluster',
    )
    .option('--host <address>', 'address nats-server listens on', '0.0.0.0')
    .addOption(new Option('--port <n>', 'port nats-server listens on').argParser(portNumber).default(4222))
    .option('--tls-cert <file>', "the server's TLS certificate (PEM): clients must then use TLS")
    .option('--tls-key <file>', "the server's TLS private key (PEM)")
    .option('--json', 'print what was written as JSON')
    .addHelpText(
      'after',
      examples(
        'agent-bridge cluster init --node laptop --node buildbox',
        'agent-bridge cluster init --node laptop --node buildbox --node cloud -o ~/nats   # adds cloud, keeps the others',
        'agent-bridge cluster init --node laptop --tls-cert server.pem --tls-key server-key.pem',
      ),
    )
    .action(async (options: ClusterInitFlags) => {
      const { clusterInitCommand } = await import('./commands/cluster-init.js');
      process.exitCode = clusterInitCommand(options);
    });
}

export interface ClusterInitFlags {
  node?: string[];
  hub?: string[];
  out: string;
  host: string;
  port: number;
  tlsCert?: string;
  tlsKey?: string;
  json?: boolean;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
