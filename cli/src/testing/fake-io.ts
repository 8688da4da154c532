import type { Io } from "../runtime/io.js";

/** Options of {@link createFakeIo}. */
export interface FakeIoOptions {
  tty?: boolean;
  env?: Record<string, string | undefined>;
  cwd?: string;
  stdin?: string;
}

/** An {@link Io} that records output and lets the test deliver a shutdown signal. */
export function createFakeIo(options: FakeIoOptions = {}) {
  let stdout = "";
  let stderr = "";
  let signal!: (name: string) => void;
  const shutdown = new Promise<string>((resolve) => (signal = resolve));
  const listeners = new Set<(text: string) => void>();
  const io: Io = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: {
      write: (text: string) => {
        stderr += text;
        for (const listener of listeners) listener(stderr);
      },
    },
    readStdin: async () => options.stdin ?? "",
    stdinIsTTY: options.tty ?? false,
    stdoutIsTTY: options.tty ?? false,
    stderrIsTTY: options.tty ?? false,
    env: { NO_COLOR: "1", ...options.env },
    cwd: options.cwd ?? process.cwd(),
    onShutdown: () => shutdown,
  };
  return {
    io,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    /** Resolves once stderr matches `pattern` (a readiness line), without polling. */
    waitForStderr(pattern: RegExp): Promise<string> {
      return new Promise((resolve) => {
        if (pattern.test(stderr)) return resolve(stderr);
        const listener = (text: string) => {
          if (!pattern.test(text)) return;
          listeners.delete(listener);
          resolve(text);
        };
        listeners.add(listener);
      });
    },
    /** Delivers SIGTERM to whatever waits in `io.onShutdown()`. */
    shutdown: () => signal("SIGTERM"),
  };
}

/** What {@link createFakeIo} returns. */
export type FakeIo = ReturnType<typeof createFakeIo>;
