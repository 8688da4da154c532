import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { toChoice } from "../../runtime/parse.js";
import { toTree, walk, type CommandTree } from "./tree.js";

const SHELLS = ["bash", "zsh", "fish"] as const;

/** Options of `lp completion`. */
export interface CompletionOptions {
  shell: (typeof SHELLS)[number];
  tree: CommandTree;
}

/** Turns the parsed flags of `lp completion` into its options; usage errors only, no I/O. */
export function toOptions({ args, command }: CommandInput): CompletionOptions {
  let root = command!;
  while (root.parent) root = root.parent;
  return { shell: toChoice(args[0], "SHELL", SHELLS)!, tree: toTree(root) };
}

/** Runs `lp completion`. */
export async function run(opts: CompletionOptions, ctx: Context): Promise<void> {
  ctx.io.stdout.write(opts.shell === "fish" ? fish(opts.tree) : bash(opts.tree, opts.shell === "zsh"));
}

/** bash (and zsh through bashcompinit): the deepest known command path picks the words offered. */
function bash(tree: CommandTree, zsh: boolean): string {
  // Global flags work after any sub-command; --version only at the top.
  const globals = tree.options.filter((o) => o !== "--version" && o !== "-V");
  const nodes = walk(tree);
  const known = nodes.map(([path]) => path.join(":")).filter(Boolean).join(" ");
  const cases = nodes
    .map(([path, node]) => {
      const words = new Set([...node.commands.map((c) => c.name), ...node.options, ...(path.length ? globals : [])]);
      return `    "${path.join(":")}") words="${[...words].join(" ")}" ;;`;
    })
    .join("\n");
  return `${zsh ? "#compdef lp\nautoload -U +X bashcompinit && bashcompinit\n" : ""}# lp completion (${zsh ? "zsh" : "bash"})
_lp_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" word candidate words i
  local known=" ${known} "
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    candidate="\${path:+\$path:}\$word"
    case "\$known" in *" \$candidate "*) path="\$candidate" ;; esac
  done
  case "\$path" in
${cases}
    *) words="" ;;
  esac
  COMPREPLY=( \$(compgen -W "\$words" -- "\$cur") )
}
complete -o default -F _lp_complete lp
`;
}

/** fish: one `complete` line per sub-command and per flag, conditioned on the words seen. */
function fish(tree: CommandTree): string {
  const lines = ["# lp completion (fish)", "complete -c lp -f"];
  const quote = (s: string) => `'${s.replace(/'/g, "\\'")}'`;
  for (const [path, node] of walk(tree)) {
    const seen = path.map((p) => `__fish_seen_subcommand_from ${p}`);
    const condition = path.length === 0 ? "__fish_use_subcommand" : seen.join("; and ");
    for (const child of node.commands) lines.push(`complete -c lp -n ${quote(condition)} -a ${child.name} -d ${quote(child.description)}`);
    for (const option of node.options.filter((o) => o.startsWith("--"))) lines.push(`complete -c lp -n ${quote(condition)} -l ${option.slice(2)}`);
  }
  return `${lines.join("\n")}\n`;
}
