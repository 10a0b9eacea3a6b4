import { Argument, Option, type Command } from 'commander';
import { examples, positiveIntOrZero, portNumber } from './command-options.js';

/** Seed 004's operational commands: `doctor`, `debug bundle`, and shell completion. */
export function addOperationalCommands(program: Command): void {
  program
    .command('doctor')
    .description('check that everything agent-bridge needs works here: one line per check, with the fix')
    .option(
      '--config <file>',
      'agent-bridge.yaml to check (default: ./agent-bridge.yaml, then ~/.agent-bridge/)',
    )
    .option('--host <address>', 'address the web UI would listen on', '127.0.0.1')
    .addOption(
      new Option('--port <n>', 'port the web UI would listen on').argParser(portNumber).default(7600),
    )
    .option('--json', 'print JSON for scripts')
    .addHelpText('after', examples('agent-bridge doctor', 'agent-bridge doctor --json | jq .failed'))
    .action(async (options: { config?: string; host: string; port: number; json?: boolean }) => {
      const { doctorCommand } = await import('./commands/doctor.js');
      process.exitCode = await doctorCommand(options);
    });

  program
    .command('debug')
    .description('help with bug reports')
    .addHelpText('after', examples('agent-bridge debug bundle'))
    .command('bundle')
    .description('write a .tar.gz for a bug report: versions, doctor, redacted config, recent audit and logs')
    .option('-o, --output <file>', 'where to write it (default: ./agent-bridge-debug-<time>.tar.gz)')
    .option('--config <file>', 'agent-bridge.yaml to include, redacted (default: the one found)')
    .addOption(
      new Option('--audit-lines <n>', 'how many recent audit lines to include')
        .argParser(positiveIntOrZero)
        .default(500),
    )
    .option('--json', 'print what was written as JSON')
    .addHelpText(
      'after',
      examples('agent-bridge debug bundle', 'agent-bridge debug bundle -o /tmp/report.tar.gz'),
    )
    .action(async (options: { output?: string; config?: string; auditLines: number; json?: boolean }) => {
      const { debugBundleCommand } = await import('./commands/debug-bundle.js');
      process.exitCode = await debugBundleCommand(options);
    });

  program
    .command('completion')
    .description('print a shell completion script (bash, zsh or fish)')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
    .addHelpText(
      'after',
      examples(
        'agent-bridge completion bash >> ~/.bashrc',
        'agent-bridge completion zsh >> ~/.zshrc',
        'agent-bridge completion fish > ~/.config/fish/completions/agent-bridge.fish',
      ),
    )
    .action(async (shell: 'bash' | 'zsh' | 'fish') => {
      const { completionScript } = await import('./completion.js');
      process.stdout.write(completionScript(shell, program));
    });
}
