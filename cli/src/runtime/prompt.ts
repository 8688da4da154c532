import { UsageError } from "./errors.js";

/** Asks a person for values. Only used when stdin and stdout are terminals. */
export interface Prompter {
  input(message: string, options?: { default?: string; validate?: (value: string) => true | string }): Promise<string>;
  confirm(message: string, options?: { default?: boolean }): Promise<boolean>;
  select<T extends string>(message: string, choices: readonly T[]): Promise<T>;
}

/** @inquirer/prompts, loaded on first use so commands that never prompt never pay for it. */
export const inquirerPrompter: Prompter = {
  async input(message, options = {}) {
    const { input } = await import("@inquirer/prompts");
    return input({ message, default: options.default, validate: options.validate });
  },
  async confirm(message, options = {}) {
    const { confirm } = await import("@inquirer/prompts");
    return confirm({ message, default: options.default ?? false });
  },
  async select(message, choices) {
    const { select } = await import("@inquirer/prompts");
    return select({ message, choices: choices.map((value) => ({ value, name: value })) });
  },
};

/**
 * A value from its flag, else from a prompt when one is allowed, else a usage error naming the flag:
 * a command without a terminal never waits for input that cannot come.
 */
export async function valueOrPrompt(
  value: string | undefined,
  flag: string,
  ask: { canPrompt: boolean; prompt: Prompter },
  message: string,
): Promise<string> {
  if (value !== undefined && value !== "") return value;
  if (!ask.canPrompt) throw new UsageError(`Missing ${flag}.`);
  return ask.prompt.input(message, { validate: (v) => (v.trim() ? true : `${message} is required`) });
}
