/**
 * Shell completion, made from the program itself so it names every command and option there is:
 * bash through `complete -F`, zsh through its bash compatibility (bashcompinit).
 */
import type { Command } from 'commander';
import { UsageError } from './spec';

function words(command: Command): string {
  const names = command.commands.map((sub) => sub.name());
  const flags = command.options.map((option) => option.long).filter((flag): flag is string => flag !== undefined);
  return [...names, ...flags, '--help'].join(' ');
}

export function completionScript(shell: string, program: Command): string {
  if (shell !== 'bash' && shell !== 'zsh') throw new UsageError(`no completion for ${shell}: bash or zsh`);
  const cases = program.commands
    .map((group) => {
      const inner = group.commands
        .map(
          (sub) => `      "${group.name()} ${sub.name()}"|"${group.name()} ${sub.name()} "*) words="${words(sub)}" ;;`,
        )
        .join('\n');
      return `${inner}\n      "${group.name()}"|"${group.name()} "*) words="${words(group)}" ;;`;
    })
    .join('\n');
  const body = `_dps() {
  local current="\${COMP_WORDS[COMP_CWORD]}" path="" word words
  for word in "\${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    case "$word" in -*) ;; *) path="\${path:+$path }$word" ;; esac
  done
  case "$path" in
${cases}
      *) words="${words(program)}" ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$current"))
}
complete -o default -F _dps dps
`;
  return shell === 'zsh' ? `autoload -U +X bashcompinit && bashcompinit\n${body}` : body;
}
