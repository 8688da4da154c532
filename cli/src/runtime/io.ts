/** A place text goes. */
export interface Sink {
  write(text: string): unknown;
}

/**
 * Everything a command touches outside itself, injected so that each command can be run in a test
 * with captured output, a chosen terminal state and environment.
 */
export interface Io {
  stdout: Sink;
  stderr: Sink;
  /** Whole standard input as text (for `--data @-`, `admin import -`). */
  readStdin(): Promise<string>;
  /** Standard streams attached to a terminal. */
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Width of the terminal on stderr, when it is one (spinner lines are cut to fit). */
  stderrColumns?: number;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Resolves with the signal name on the first SIGINT/SIGTERM (long-running commands: serve, listen). */
  onShutdown(): Promise<string>;
  /** Ends the process now, whatever is still pending (a shutdown that left work behind); absent in tests. */
  exit?(code: number): void;
}

/** The real process's IO. */
export function processIo(): Io {
  // A reader that went away (`lp ... | head`) is not an error of ours.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
      throw error;
    });
  }
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    async readStdin() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
    stdinIsTTY: process.stdin.isTTY === true,
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    stderrColumns: process.stderr.columns,
    env: process.env,
    cwd: process.cwd(),
    exit: (code) => process.exit(code),
    onShutdown: () =>
      new Promise((resolve) => {
        const handler = (signal: string) => {
          process.off("SIGINT", handler);
          process.off("SIGTERM", handler);
          // A second signal while shutting down means "now".
          const force = () => process.exit(130);
          process.once("SIGINT", force);
          process.once("SIGTERM", force);
          resolve(signal);
        };
        process.on("SIGINT", handler);
        process.on("SIGTERM", handler);
      }),
  };
}

/** Prompts, spinners and animations only when a person is at the keyboard: stdin and stdout are terminals. */
export function isInteractive(io: Io): boolean {
  return io.stdinIsTTY && io.stdoutIsTTY;
}
