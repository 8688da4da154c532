import { isInteractive, type Io } from "./io.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** Progress on stderr: a spinner on a terminal, otherwise one plain line per change. */
export interface Progress {
  update(text: string): void;
  stop(): void;
}

/** Creates a {@link Progress}; animates only when stdin, stdout and stderr are terminals. */
export function createProgress(io: Io): Progress {
  const animate = isInteractive(io) && io.stderrIsTTY;
  let text = "";
  let frame = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  // A line longer than the terminal would wrap, and `\r` could no longer redraw it.
  const fit = (line: string) => (io.stderrColumns && line.length > io.stderrColumns - 3 ? `${line.slice(0, io.stderrColumns - 4)}…` : line);
  const draw = () => io.stderr.write(`\r${FRAMES[frame++ % FRAMES.length]} ${fit(text)}\x1b[K`);
  return {
    update(next) {
      if (next === text) return;
      text = next;
      if (!animate) {
        io.stderr.write(`${text}\n`);
        return;
      }
      timer ??= setInterval(draw, 100);
      timer.unref?.();
      draw();
    },
    stop() {
      if (timer) clearInterval(timer);
      if (animate && text) io.stderr.write("\r\x1b[K");
      timer = undefined;
    },
  };
}
