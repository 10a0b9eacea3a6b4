import type { Command, Option } from 'commander';

/** One command of the tree: the words that lead to it, its subcommands, its options and argument choices. */
interface CompletionNode {
  path: string[];
  subcommands: Array<{ name: string; description: string }>;
  options: Array<{ flag: string; description: string }>;
  choices: string[];
}

/** A completion script for the shell, made from the command tree itself, so it never lists a stale command. */
export function completionScript(shell: 'bash' | 'zsh' | 'fish', program: Command): string {
  const nodes = collect(program, []);
  if (shell === 'fish') return fish(nodes);
  const script = bash(nodes);
  return shell === 'zsh'
    ? `# agent-bridge completion for zsh (through bash completion)\nautoload -U +X bashcompinit && bashcompinit\n${script}`
    : script;
}

function collect(command: Command, path: string[]): CompletionNode[] {
  const visible = command.commands.filter((sub) => !(sub as unknown as { _hidden?: boolean })._hidden);
  const node: CompletionNode = {
    path,
    subcommands: visible.map((sub) => ({ name: sub.name(), description: sub.description() })),
    options: [
      ...command.options.map((option: Option) => ({
        flag: option.long ?? option.short ?? '',
        description: option.description,
      })),
      { flag: '--help', description: 'show help' },
    ].filter((option) => option.flag),
    choices: command.registeredArguments.flatMap((argument) => argument.argChoices ?? []),
  };
  return [node, ...visible.flatMap((sub) => collect(sub, [...path, sub.name()]))];
}

function bash(nodes: CompletionNode[]): string {
  const key = (path: string[]) => path.join(' ');
  const words = nodes
    .map((node) => {
      const all = [
        ...node.subcommands.map((s) => s.name),
        ...node.choices,
        ...node.options.map((o) => o.flag),
      ];
      return `    "${key(node.path)}") words="${all.join(' ')}" ;;`;
    })
    .join('\n');
  const subs = nodes
    .filter((node) => node.subcommands.length > 0)
    .map((node) => `    "${key(node.path)}") echo "${node.subcommands.map((s) => s.name).join(' ')}" ;;`)
    .join('\n');
  return `# agent-bridge completion for bash: agent-bridge completion bash >> ~/.bashrc
_agent_bridge_subcommands() {
  case "$1" in
${subs}
  esac
}
_agent_bridge() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" words="" i word
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    [[ "$word" == -- ]] && return 0
    if [[ " $(_agent_bridge_subcommands "$path") " == *" $word "* ]]; then
      path="\${path:+$path }$word"
    fi
  done
  case "$path" in
${words}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _agent_bridge agent-bridge
`;
}

function fish(nodes: CompletionNode[]): string {
  const quote = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const lines = ['# agent-bridge completion for fish', 'complete -c agent-bridge -f'];
  for (const node of nodes) {
    const last = node.path.at(-1);
    const condition =
      node.path.length === 0
        ? '__fish_use_subcommand'
        : `__fish_seen_subcommand_from ${last}` +
          (node.subcommands.length > 0
            ? `; and not __fish_seen_subcommand_from ${node.subcommands.map((s) => s.name).join(' ')}`
            : '');
    for (const sub of node.subcommands)
      lines.push(
        `complete -c agent-bridge -n ${quote(condition)} -a ${sub.name} -d ${quote(sub.description)}`,
      );
    for (const choice of node.choices)
      lines.push(`complete -c agent-bridge -n ${quote(condition)} -a ${choice}`);
    for (const option of node.options)
      lines.push(
        `complete -c agent-bridge -n ${quote(condition)} -l ${option.flag.replace(/^--?/, '')} -d ${quote(option.description)}`,
      );
  }
  return lines.join('\n') + '\n';
}
