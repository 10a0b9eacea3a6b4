import { Command, CommanderError, Option } from 'commander';
import type { RunOptions } from './commands/run.js';
import type { ServeOptions } from './commands/serve.js';
import type { SetupDiscordOptions } from './commands/setup-discord.js';
import { examples, portNumber, positiveIntOrZero, promptTtl, terminalSize } from './command-options.js';
import type { SetupSlackOptions } from './commands/setup-slack.js';
import { describeError, exitCodeFor } from './errors.js';
import { addOperationalCommands } from './operational-commands.js';
import { addClusterCommands } from './cluster-commands.js';
import { DEFAULT_DETACH_KEY } from './detach-key.js';
import { packageVersion } from '../package-files.js';

/**
 * The command line. Heavy modules (node-pty, xterm) load inside each command's action: `--version` and
 * `--help` start fast.
 */
export function buildProgram(): Command {
  const program = new Command('agent-bridge')
    .description(
      'Drive and supervise the AI coding agents on this machine, from the terminal, a browser or chat.',
    )
    .version(packageVersion(), '-v, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .addHelpText(
      'after',
      examples('agent-bridge run shell', 'agent-bridge run claude -- --model sonnet', 'agent-bridge agents'),
    );

  addRunCommand(program);
  addAttachCommand(program);
  addStopCommand(program);

  program
    .command('agents')
    .description('list the agent CLIs agent-bridge knows, and where each was found')
    .option('--json', 'print JSON for scripts')
    .addHelpText('after', examples('agent-bridge agents', 'agent-bridge agents --json'))
    .action(async (options: { json?: boolean }) => {
      const { agentsCommand } = await import('./commands/agents.js');
      await agentsCommand(options);
    });

  program
    .command('recordings')
    .description('list the recorded terminal sessions (asciicast v2, playable with asciinema), newest first')
    .option('-n, --limit <n>', 'how many (0: all)', (v) => positiveIntOrZero(v), 50)
    .option('--before <id>', 'only recordings older than this one (the next page)')
    .option('--json', 'print JSON for scripts')
    .addHelpText(
      'after',
      examples(
        'agent-bridge recordings',
        'asciinema play "$(agent-bridge recordings --json | jq -r .[0].file)"',
      ),
    )
    .action(async (options: { json?: boolean; limit: number; before?: string }) => {
      const { recordingsCommand } = await import('./commands/recordings.js');
      await recordingsCommand(options);
    });

  addApprovalCommands(program);
  addServeCommands(program);
  addSetupCommands(program);
  addConfigCommands(program);
  addOperationalCommands(program);
  addClusterCommands(program);
  return program;
}

function addRunCommand(program: Command): void {
  program
    .command('run')
    .description(
      'run an agent in this terminal, exactly as you would, with agent-bridge watching and recording',
    )
    .argument('<agent>', 'claude, codex, gemini, copilot, cursor-agent, aider, shell, custom or acp')
    .argument('[args...]', 'arguments for the agent, after --')
    .option('-C, --cwd <dir>', 'folder to run the agent in (default: the current folder)')
    .option('--skip-permissions', 'start the agent with its own skip-permissions flag (dangerous)')
    .option('--resume [id]', 'resume a conversation: the given id, or the most recent one')
    .option('--continue', 'continue the most recent conversation (same as --resume without an id)')
    .option('--no-auto-trust', "do not accept the agent's folder-trust question automatically")
    .option('--no-record', 'do not write an asciicast recording of the session')
    .option('--no-hooks', 'Claude Code: detect prompts from the screen only, without its hooks')
    .addOption(
      new Option(
        '--driver <driver>',
        "terminal: the agent's own screen (default); structured: its protocol, as a conversation here; auto: its protocol where the installed agent speaks one",
      ).choices(['auto', 'terminal', 'structured']),
    )
    .option('--config <file>', 'agent-bridge.yaml with the channels named by --approve-from')
    .option('-q, --quiet', 'do not say on stderr what was started (session id, recording, where to answer)')
    .option('--web-input', 'let the web UI type into this session (by default it may only watch)')
    .option('--no-web-view', "do not show this session's screen in the web UI at all")
    .option('--detach', 'start the session with no terminal and return (agent-bridge attach <id> to use it)')
    .option(
      '--no-detach',
      'end the agent when this terminal closes or agent-bridge is killed (default: it goes on)',
    )
    .addOption(
      detachKeyOption('the key that detaches this terminal and leaves the session running: ^X or none'),
    )
    .option(
      '--prompt-ttl <kind=seconds>',
      'how long a kind of prompt waits before its safe default applies (repeatable), e.g. permission=300',
      (value: string, previous: Record<string, number> | undefined) => ({ ...previous, ...promptTtl(value) }),
    )
    .option(
      '--approve-from <channel>',
      'also accept answers to prompts from this channel (repeatable); this terminal and `agent-bridge approvals` always can',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .addOption(
      new Option('--cols <n>', 'terminal width when stdin is not a terminal')
        .argParser(terminalSize)
        .default(80),
    )
    .addOption(
      new Option('--rows <n>', 'terminal height when stdin is not a terminal')
        .argParser(terminalSize)
        .default(24),
    )
    .addHelpText(
      'after',
      examples(
        'agent-bridge run shell',
        'agent-bridge run claude --continue',
        'agent-bridge run custom -- python3 -i',
        'agent-bridge run gemini --driver structured',
        'agent-bridge run acp -- opencode acp',
        'agent-bridge run claude --web-input',
        'agent-bridge run claude --detach',
      ),
    )
    .action(async (agent: string, args: string[], options: RunOptions) => {
      // The session host starts loading now, beside this process loading the rest of itself.
      if (options.driver !== 'structured')
        (await import('../sessions/host/spawn-host.js')).prewarmHost(options.detach !== true);
      const { runCommand } = await import('./commands/run.js');
      process.exitCode = await runCommand(agent, args, options);
    });
}

function addAttachCommand(program: Command): void {
  program
    .command('attach')
    .description(
      'attach this terminal to a running session (several terminals may attach at once); the detach key leaves it running',
    )
    .argument('[session]', 'the session id (or its first characters); default: the only one running here')
    .addOption(detachKeyOption('the key that detaches this terminal: ^X or none'))
    .option('--read-only', 'only watch: keys typed here do not reach the agent')
    .addHelpText(
      'after',
      examples('agent-bridge attach 3f2a', 'agent-bridge attach', 'agent-bridge attach 3f2a --detach-key ^]'),
    )
    .action(async (session: string | undefined, options: { detachKey: string; readOnly?: boolean }) => {
      const { attachCommand } = await import('./commands/attach.js');
      process.exitCode = await attachCommand(session, options);
    });
}

function addStopCommand(program: Command): void {
  program
    .command('stop')
    .description(
      "end running sessions (the agent gets SIGHUP and SIGTERM, SIGKILL 5 s later), as the web UI's Stop does",
    )
    .argument('<session...>', 'session ids (or their first characters) from agent-bridge status')
    .option('--json', 'print JSON for scripts')
    .addHelpText('after', examples('agent-bridge stop 3f2a', 'agent-bridge stop 3f2a 9c1e --json'))
    .action(async (sessions: string[], options: { json?: boolean }) => {
      const { stopCommand } = await import('./commands/stop.js');
      process.exitCode = await stopCommand(sessions, options);
    });
}

function addApprovalCommands(program: Command): void {
  program
    .command('status')
    .description('show running agent sessions and what each waits for (--all: past sessions too)')
    .option('--all', 'include sessions that ended')
    .option('--json', 'print JSON for scripts')
    .addHelpText('after', examples('agent-bridge status', 'agent-bridge status --all --json'))
    .action(async (options: { all?: boolean; json?: boolean }) => {
      const { statusCommand } = await import('./commands/status.js');
      statusCommand(options);
    });

  const approvals = program
    .command('approvals')
    .description('list the prompts waiting for a person, across all sessions')
    .option('--json', 'print JSON for scripts')
    .option('--watch', 'stay open: print prompts as they appear and answer them here')
    .addHelpText(
      'after',
      examples(
        'agent-bridge approvals',
        'agent-bridge approvals answer 3f2a 1',
        'agent-bridge approvals answer 3f2a no',
      ),
    )
    .action(async (options: { json?: boolean; watch?: boolean }) => {
      const { approvalsCommand, watchCommand } = await import('./commands/approvals.js');
      if (options.watch) process.exitCode = await watchCommand();
      else approvalsCommand(options);
    });
  approvals
    .command('answer')
    .description(
      'answer a waiting prompt: a choice number as the agent shows it, y/yes, n/no, session, enter, default, cancel, or text',
    )
    .argument('<id>', 'the prompt id (or its first characters) from agent-bridge approvals')
    .argument('<answer...>', 'the answer; several words are joined into one text')
    .option('--json', 'print JSON for scripts')
    .addHelpText(
      'after',
      examples(
        'agent-bridge approvals answer 3f2a 1',
        'agent-bridge approvals answer 3f2a deny',
        'agent-bridge approvals answer 9c1e "use the staging database"',
      ),
    )
    .action(async (id: string, answer: string[], _options, command: Command) => {
      const { answerCommand } = await import('./commands/approvals.js');
      // `approvals` has a --json of its own, which commander gives it wherever it is typed: read both.
      const options = command.optsWithGlobals<{ json?: boolean }>();
      process.exitCode = await answerCommand(id, answer.join(' '), options);
    });

  program
    .command('logs')
    .description('show the audit log (who was asked what, who answered, what was typed); --tail follows it')
    .option('-n, --lines <n>', 'how many recent entries to show', (v) => positiveIntOrZero(v), 20)
    .option('--tail', 'keep printing new entries as they are written')
    .option('--json', 'print the raw JSON lines')
    .addHelpText(
      'after',
      examples('agent-bridge logs', 'agent-bridge logs --tail', 'agent-bridge logs -n 100 --json'),
    )
    .action(async (options: { lines: number; tail?: boolean; json?: boolean }) => {
      const { logsCommand } = await import('./commands/logs.js');
      await logsCommand(options);
    });

  program
    .command('audit')
    .description('check the audit log')
    .addHelpText('after', examples('agent-bridge audit verify', 'agent-bridge audit verify --json'))
    .command('verify')
    .description('recompute the hash chain of the audit log; exits 1 at the first broken line')
    .option('--json', 'print JSON for scripts')
    .addHelpText('after', examples('agent-bridge audit verify'))
    .action(async (options: { json?: boolean }) => {
      const { auditVerifyCommand } = await import('./commands/audit.js');
      process.exitCode = await auditVerifyCommand(options);
    });
}

function addServeCommands(program: Command): void {
  program
    .command('serve')
    .description(
      'the daemon: each configured repository gets an agent session, started on its first message, talked to from its chats; with no config, this folder from this terminal',
    )
    .option(
      '--config <file>',
      'agent-bridge.yaml to use (default: ./agent-bridge.yaml, then ~/.agent-bridge/agent-bridge.yaml)',
    )
    .option('--terminal', 'also talk to the agents from this terminal (the default when stdin is a terminal)')
    .option('--no-terminal', 'do not read this terminal')
    .option('--no-web', 'do not serve the web UI')
    .option(
      '--host <address>',
      'address for the web UI (anything but loopback needs TLS or --insecure-bind)',
      '127.0.0.1',
    )
    .addOption(
      new Option('--port <n>', 'port for the web UI (0: any free port)').argParser(portNumber).default(7600),
    )
    .option('--tls-cert <file>', 'TLS certificate (PEM) for the web UI')
    .option('--tls-key <file>', 'TLS private key (PEM) for the web UI')
    .option('--insecure-bind', 'allow plain HTTP on a non-loopback --host')
    .option(
      '--nats <url>',
      'many machines: join the cluster through this NATS server (nats://host:4222) as its hub, or as a node with --node',
    )
    .option(
      '--node <name>',
      "with --nats: this machine is the node <name> (it hosts agents; chats are the hub's)",
    )
    .option(
      '--nats-credentials <file>',
      "with --nats: this machine's key file (agent-bridge cluster init writes it)",
    )
    .addHelpText(
      'after',
      examples(
        'agent-bridge serve',
        'agent-bridge serve --config ~/work/agent-bridge.yaml',
        'agent-bridge serve --nats nats://hub.example:4222 --nats-credentials ~/.agent-bridge/hub.nk',
        'agent-bridge serve --nats nats://hub.example:4222 --node laptop --nats-credentials ~/.agent-bridge/laptop.nk',
      ),
    )
    .action(async (options: ServeOptions) => {
      const { serveCommand } = await import('./commands/serve.js');
      process.exitCode = await serveCommand(options);
    });
}

const CONFIG_TO_WRITE =
  'config file to write (default: the one found, else ~/.agent-bridge/agent-bridge.yaml)';

/** Repeatable options collect their values. */
const repeat = (v: string, p: string[] | undefined) => [...(p ?? []), v];

function addSetupCommands(program: Command): void {
  const setup = program
    .command('setup')
    .description('set up a chat channel')
    .addHelpText('after', examples('agent-bridge setup telegram', 'agent-bridge setup discord'));
  setup
    .command('telegram')
    .description('connect a Telegram bot: checks the token, writes the config file (readable only by you)')
    .option('--token <token>', 'the bot token from @BotFather (asked when missing)')
    .option('--user <id>', 'a Telegram user id allowed to answer (repeatable; asked when missing)', repeat)
    .option('--api-root <url>', 'a self-hosted Bot API server instead of api.telegram.org')
    .option('--config <file>', CONFIG_TO_WRITE)
    .addHelpText(
      'after',
      examples(
        'agent-bridge setup telegram',
        'agent-bridge setup telegram --token 123456:ABC... --user 123456789',
      ),
    )
    .action(async (options: { token?: string; user?: string[]; apiRoot?: string; config?: string }) => {
      const { setupTelegramCommand } = await import('./commands/setup.js');
      await setupTelegramCommand(options);
    });
  setup
    .command('discord')
    .description('connect a Discord bot: checks the token, writes the config file (readable only by you)')
    .option('--token <token>', 'the bot token from the Developer Portal (asked when missing)')
    .option(
      '--user <id>',
      'a Discord user id allowed to drive sessions (repeatable; asked when missing)',
      repeat,
    )
    .option(
      '--channel <id>',
      'a channel where prompts of `run --approve-from discord` go (repeatable; default: your DMs)',
      repeat,
    )
    .option('--general <id>', 'a channel for the control panel (Start / Stop per project)')
    .option('--api-root <url>', 'another REST root, e.g. a local fake: http://127.0.0.1:PORT/api')
    .option('--config <file>', CONFIG_TO_WRITE)
    .addHelpText(
      'after',
      examples(
        'agent-bridge setup discord',
        'agent-bridge setup discord --token MTI... --user 123456789012345678 --channel 223456789012345678',
      ),
    )
    .action(async (options: SetupDiscordOptions) => {
      const { setupDiscordCommand } = await import('./commands/setup-discord.js');
      await setupDiscordCommand(options);
    });
  addSetupSlack(setup);
}

function addSetupSlack(setup: Command): void {
  setup
    .command('slack')
    .description(
      'connect a Slack app (Socket Mode): checks both tokens, writes the config file (readable only by you), prints the app manifest',
    )
    .option('--token <token>', 'the bot token, xoxb-… (asked when missing)')
    .option('--app-token <token>', 'the app-level token for Socket Mode, xapp-… (asked when missing)')
    .option(
      '--user <id>',
      'a Slack member id allowed to drive sessions, U… (repeatable; asked when missing)',
      repeat,
    )
    .option(
      '--channel <id>',
      'a channel where prompts of `run --approve-from slack` go, C… (repeatable; default: your DMs with the app)',
      repeat,
    )
    .option('--api-root <url>', 'another Web API root, e.g. a local fake: http://127.0.0.1:PORT/api/')
    .option('--manifest', 'only print the app manifest to paste at api.slack.com/apps')
    .option('--config <file>', CONFIG_TO_WRITE)
    .addHelpText(
      'after',
      examples(
        'agent-bridge setup slack --manifest > manifest.yaml',
        'agent-bridge setup slack',
        'agent-bridge setup slack --token xoxb-... --app-token xapp-... --user U0123ABCD --channel C0123ABCD',
      ),
    )
    .action(async (options: SetupSlackOptions) => {
      const { setupSlackCommand } = await import('./commands/setup-slack.js');
      await setupSlackCommand(options);
    });
}

function addConfigCommands(program: Command): void {
  program
    .command('add-repo')
    .description(
      'add a repository to agent-bridge.yaml: its folder, agent and chat channels (keeps comments)',
    )
    .argument('[args...]', 'arguments for the agent, after --')
    .option('--name <name>', "the repo's name (default: the folder's name)")
    .requiredOption('--dir <dir>', 'the folder the agent works in (must exist; ~ is your home)')
    .requiredOption(
      '--channel <channel:id>',
      'where the repo is reached, e.g. telegram:123456789, discord:1122334455 or slack:C0123ABCD (a bare id is Discord; repeatable)',
      (v: string, p: string[] | undefined) => [...(p ?? []), v],
    )
    .option('--agent <agent>', 'claude, codex, gemini, ... (default: defaults.agent, which is claude)')
    .option(
      '--driver <driver>',
      "auto, terminal or structured (default terminal: the agent's screen; structured: its own protocol)",
    )
    .option(
      '--config <file>',
      'config file to edit (default: the one found, else ~/.agent-bridge/agent-bridge.yaml)',
    )
    .option('--json', 'print the added repo entry as JSON')
    .addHelpText(
      'after',
      examples(
        'agent-bridge add-repo --dir ~/src/api --channel telegram:123456789',
        'agent-bridge add-repo --name web --dir . --agent codex --channel discord:1122334455',
        'agent-bridge add-repo --dir ~/src/app --channel slack:C0123ABCD',
        'agent-bridge add-repo --dir ~/src/api --channel telegram:123456789 -- --model sonnet',
      ),
    )
    .action(async (args: string[], options, command: Command) => {
      const { addRepoCommand, agentArgs } = await import('./commands/add-repo.js');
      // rawArgs (untyped) tells agent arguments after -- from a stray word such as a name without --name.
      const rawArgs = (command.parent as unknown as { rawArgs?: string[] } | null)?.rawArgs;
      addRepoCommand({ ...options, args: agentArgs(args, rawArgs) });
    });

  program
    .command('config')
    .description('check the configuration file')
    .addHelpText(
      'after',
      examples('agent-bridge config check', 'agent-bridge config check --config ./agent-bridge.yaml'),
    )
    .command('check')
    .description('validate agent-bridge.yaml and check each repo (folder exists, agent known)')
    .option('--config <file>', 'config file to check (default: ./agent-bridge.yaml, then ~/.agent-bridge/)')
    .option('--json', 'print JSON for scripts')
    .addHelpText('after', examples('agent-bridge config check', 'agent-bridge config check --json'))
    .action(async (options: { config?: string; json?: boolean }) => {
      const { configCheckCommand } = await import('./commands/config.js');
      process.exitCode = configCheckCommand(options);
    });
}

export async function main(argv: string[]): Promise<void> {
  // `agent-bridge ... | head` closes our stdout early: that is not an error worth a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // help and version "errors" are successes; every other parse error is bad usage.
      process.exitCode = error.exitCode === 0 ? 0 : 2;
      return;
    }
    const message = describeError(error);
    process.stderr.write(`agent-bridge: ${message}\n`);
    // A script that asked for JSON reads stdout: it gets the failure there too, not an empty line.
    if (asksForJson(argv)) process.stdout.write(JSON.stringify({ ok: false, error: message }) + '\n');
    process.exitCode = exitCodeFor(error);
  }
}

/** `--json` among agent-bridge's own arguments (not the agent's, after `--`). */
function asksForJson(argv: string[]): boolean {
  const own = argv.slice(2);
  const end = own.indexOf('--');
  return (end < 0 ? own : own.slice(0, end)).includes('--json');
}

/** `--detach-key`, its default shown as typed (Ctrl-\\), not as a JSON string. */
function detachKeyOption(description: string): Option {
  return new Option('--detach-key <key>', description).default(
    DEFAULT_DETACH_KEY,
    `${DEFAULT_DETACH_KEY} (Ctrl-\\)`,
  );
}
