import type { Command } from "commander";
import { examples, lazy } from "../../runtime/define.js";

/** `lp completion bash|zsh|fish`. */
export function register(completion: Command): void {
  completion
    .description("Print a shell completion script")
    .argument("<shell>", "bash, zsh or fish");
  examples(completion, [
    "lp completion bash > ~/.local/share/bash-completion/completions/lp",
    "lp completion zsh > \"${fpath[1]}/_lp\"",
    "lp completion fish > ~/.config/fish/completions/lp.fish",
  ]).action(lazy(() => import("./script.js")));
}
