import type { Command } from "commander";

/** A command as completion sees it: words that may follow it. */
export interface CommandTree {
  name: string;
  description: string;
  options: string[];
  commands: CommandTree[];
}

/** Reads the declared commands and flags (no command module is loaded). */
export function toTree(command: Command): CommandTree {
  return {
    name: command.name(),
    description: command.description(),
    options: command.options.flatMap((o) => [o.long, o.short].filter((f): f is string => Boolean(f))).concat("--help"),
    commands: command.commands.map(toTree),
  };
}

/** Every command path (`["products", "create"]`) with its node, root first. */
export function walk(tree: CommandTree, path: string[] = []): Array<[string[], CommandTree]> {
  return [[path, tree], ...tree.commands.flatMap((c) => walk(c, [...path, c.name]))];
}
