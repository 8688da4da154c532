import { createProgram } from "./program.js";
import { createColors } from "./runtime/color.js";
import type { ContextDeps } from "./runtime/context.js";
import { attachRuntime } from "./runtime/define.js";
import { describeError, isCommanderError, toExitCode } from "./runtime/exit-codes.js";
import type { Io } from "./runtime/io.js";

/**
 * Runs `lp` with `args` (without `node` and the script) and resolves with the exit code. Errors are
 * printed here, once: one line on stderr with the message, the code and the request id.
 */
export async function main(args: string[], io: Io, deps: ContextDeps = {}): Promise<number> {
  const program = await createProgram(io, args);
  attachRuntime(program, io, deps);
  if (args.length === 0) {
    program.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync(args, { from: "user" });
    return 0;
  } catch (error) {
    const code = toExitCode(error);
    // commander has already printed its own message (or the help, or the version).
    if (!isCommanderError(error)) {
      io.stderr.write(`${createColors(io, "stderr").red("Error:")} ${describeError(error)}\n`);
    }
    return code;
  }
}
