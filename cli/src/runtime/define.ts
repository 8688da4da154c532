import type { Command } from "commander";
import type { Context, ContextDeps } from "./context.js";
import type { GlobalFlags } from "./config.js";
import type { Io } from "./io.js";

/** What commander parsed for one command: its positional arguments and its own flags. */
export interface CommandInput {
  args: string[];
  flags: Record<string, any>;
  /** The command itself (completion reads the whole tree from it). */
  command?: Command;
}

/**
 * A command's module (`commands/<noun>/<verb>.ts`): `toOptions` turns parsed input into a typed
 * options object (usage errors only, no I/O), `run` does the work with injected IO and client.
 */
export interface CommandModule<O = any> {
  toOptions(input: CommandInput, ctx: Context): O;
  run(opts: O, ctx: Context): Promise<void>;
}

const runtimes = new WeakMap<Command, { io: Io; deps: ContextDeps }>();

/** Attaches the IO and dependencies of this invocation to the root command. */
export function attachRuntime(root: Command, io: Io, deps: ContextDeps): void {
  runtimes.set(root, { io, deps });
}

function rootOf(command: Command): Command {
  let current = command;
  while (current.parent) current = current.parent;
  return current;
}

/** An action that imports the command module only when the command runs. */
export function lazy(load: () => Promise<CommandModule>) {
  return async (...params: unknown[]) => {
    const command = params.at(-1) as Command;
    const runtime = runtimes.get(rootOf(command));
    if (!runtime) throw new Error("lp: runtime not attached");
    const all = command.optsWithGlobals() as GlobalFlags & Record<string, unknown>;
    const flags: GlobalFlags = {
      apiUrl: all.apiUrl as string | undefined,
      token: all.token as string | undefined,
      account: all.account as string | undefined,
      appId: all.appId as string | undefined,
      appSecret: all.appSecret as string | undefined,
      adminKey: all.adminKey as string | undefined,
      profile: all.profile as string | undefined,
    };
    const [{ createContext }, mod] = await Promise.all([import("./context.js"), load()]);
    const ctx = createContext(runtime.io, flags, runtime.deps);
    const opts = mod.toOptions({ args: command.processedArgs as string[], flags: command.opts(), command }, ctx);
    await mod.run(opts, ctx);
  };
}

/** `--json`, on every command. */
export function withJson(command: Command): Command {
  return command.option("--json", "print JSON: the resource, or the array for lists");
}

/** `--limit` and `--all`, on list commands. */
export function withList(command: Command): Command {
  return command.option("--limit <n>", "how many items to print (default 20)").option("--all", "follow cursors and print every item");
}

/** `--wait`, `--interval`, `--timeout`, on commands that start or read asynchronous work. */
export function withWait(command: Command, what: string): Command {
  return command
    .option("--wait", `poll until the ${what} settles, showing its progress`)
    .option("--interval <duration>", "time between polls, 2s to 5s", "2s")
    .option("--timeout <duration>", "give up waiting after this long (exit 8)", "5m");
}

/** The example lines of each command that has an Examples block (one block, however many calls add to it). */
const exampleLines = new WeakMap<Command, string[]>();

/**
 * Help examples, shown after the options. A second call on the same command adds its new lines to the
 * one Examples block (the program's table and the command's own declaration may both name one).
 */
export function examples(command: Command, lines: string[]): Command {
  const known = exampleLines.get(command);
  if (known) {
    for (const line of lines) if (!known.includes(line)) known.push(line);
    return command;
  }
  const kept = [...new Set(lines)];
  exampleLines.set(command, kept);
  return command.addHelpText("after", () => `\nExamples:\n${kept.map((l) => `  $ ${l}`).join("\n")}\n`);
}
