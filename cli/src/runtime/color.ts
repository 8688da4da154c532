import type { Io } from "./io.js";

/** ANSI styling for one stream, off when it is not a terminal, under `NO_COLOR`, or `TERM=dumb`. */
export function createColors(io: Io, stream: "stdout" | "stderr") {
  const tty = stream === "stdout" ? io.stdoutIsTTY : io.stderrIsTTY;
  const noColor = io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== "";
  const on = tty && !noColor && io.env.TERM !== "dumb";
  const wrap = (open: number, close: number) => (text: string) => (on ? `\x1b[${open}m${text}\x1b[${close}m` : text);
  return { enabled: on, bold: wrap(1, 22), dim: wrap(2, 22), red: wrap(31, 39), green: wrap(32, 39), yellow: wrap(33, 39), cyan: wrap(36, 39) };
}

/** The styling functions of one stream. */
export type Colors = ReturnType<typeof createColors>;
