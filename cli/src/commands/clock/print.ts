import type { ClockState } from "@lp/client";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";

/** Whether `--json` was given: it is an option of `lp clock` itself, wherever it stands on the line. */
export const wantsJson = ({ flags, command }: CommandInput): boolean => flags.json === true || command?.parent?.opts().json === true;

/** Prints a clock: its time on stdout (the JSON with `--json`), its mode on stderr. */
export function printClock(ctx: Context, clock: ClockState, json: boolean): void {
  if (json) return void ctx.io.stdout.write(`${JSON.stringify(clock)}\n`);
  ctx.io.stdout.write(`${clock.now}\n`);
  ctx.io.stderr.write(clock.mode === "manual" ? "manual clock: moves only with `lp clock advance` or `lp clock set`\n" : "system clock (start lp serve --clock manual to move it)\n");
}
