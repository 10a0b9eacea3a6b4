import { Command, CommanderError, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { describeError, exitCodeFor } from './errors.js';

/** Heavy modules (node-pty, xterm) load inside each command's action, so `--version` and `--help` start fast. */
function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

function examples(...lines: string[]): string {
  return '\nExamples:\n' + lines.map((line) => `  $ ${line}`).join('\n') + '\n';
}

export function buildProgram(): Command {
  const program = new Command('agent-bridge')
    .description(
      'Drive and supervise the AI coding agents on this machine, from the terminal, a browser or chat.',
    )
    .version(version(), '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .addHelpText(
      'after',
      examples('agent-bridge run shell', 'agent-bridge run claude -- --model sonnet', 'agent-bridge agents'),
    );

  program
    .command('run')
    .description(
      'run an agent in this terminal, exactly as you would, with agent-bridge watching and recording',
    )
    .argument('<agent>', 'claude, codex, gemini, copilot, cursor-agent, aider, shell or custom')
    .argument('[args...]', 'arguments for the agent, after --')
    .option('-C, --cwd <dir>', 'folder to run the agent in (default: the current folder)')
    .option('--skip-permissions', 'start the agent with its own skip-permissions flag (dangerous)')
    .option('--resume [id]', 'resume a conversation: the given id, or the most recent one')
    .option('--continue', 'continue the most recent conversation (same as --resume without an id)')
    .option('--no-auto-trust', "do not accept the agent's folder-trust question automatically")
    .option('--no-record', 'do not write an asciicast recording of the session')
    .addOption(
      new Option('--cols <n>', 'terminal width when stdin is not a terminal')
        .argParser(positiveInt)
        .default(80),
    )
    .addOption(
      new Option('--rows <n>', 'terminal height when stdin is not a terminal')
        .argParser(positiveInt)
        .default(24),
    )
    .addHelpText(
      'after',
      examples(
        'agent-bridge run shell',
        'agent-bridge run claude --continue',
        'agent-bridge run custom -- python3 -i',
      ),
    )
    .action(async (agent: string, args: string[], options) => {
      const { runCommand } = await import('./commands/run.js');
      process.exitCode = await runCommand(agent, args, options);
    });

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
    .description('list the recorded terminal sessions (asciicast v2, playable with asciinema)')
    .option('--json', 'print JSON for scripts')
    .addHelpText(
      'after',
      examples(
        'agent-bridge recordings',
        'asciinema play "$(agent-bridge recordings --json | jq -r .[0].file)"',
      ),
    )
    .action(async (options: { json?: boolean }) => {
      const { recordingsCommand } = await import('./commands/recordings.js');
      recordingsCommand(options);
    });

  return program;
}

function positiveInt(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new CommanderError(2, 'bad-number', `not a positive whole number: ${value}`);
  return parsed;
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // help and version "errors" are successes; every other parse error is bad usage.
      process.exitCode = error.exitCode === 0 ? 0 : 2;
      return;
    }
    process.stderr.write(`agent-bridge: ${describeError(error)}\n`);
    process.exitCode = exitCodeFor(error);
  }
}
