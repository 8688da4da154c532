/** How long a cause's stack is not repeated: within it, further occurrences are only counted. */
const WINDOW_MS = 60_000;
/** Causes remembered at most; past it the oldest is forgotten (its stack may then be logged again). */
const MAX_CAUSES = 1_000;

/** Logs internal errors: what {@link createInternalErrorLog} returns. */
export interface InternalErrorLog {
  /** Logs `line` and the error's stack the first time its cause is seen in a minute; counts it otherwise. */
  report(line: string, error: unknown): void;
  /** Writes the counts still pending (at the end of each minute, and on demand). */
  flush(): void;
}

/**
 * A cause is the error's class, its `code` and where it was thrown (the first frame of its stack), not its
 * message: messages carry paths and ids, so a flood of one fault would otherwise be a flood of causes.
 */
function causeOf(error: unknown): string {
  if (!(error instanceof Error)) return `thrown ${typeof error}`;
  const frame = error.stack?.split("\n").find((line) => line.trimStart().startsWith("at ")) ?? "";
  return `${error.name}:${String((error as NodeJS.ErrnoException).code ?? "")}:${frame.trim()}`;
}

/**
 * An internal error's stack once per distinct cause a minute, then one line with the count of those not
 * shown: a client that can provoke a 500 cannot flood the log with stacks (DESIGN §14).
 */
export function createInternalErrorLog(write: (...parts: unknown[]) => void = console.error, now: () => number = Date.now): InternalErrorLog {
  const seen = new Map<string, { since: number; first: string; summary: string; more: number }>();
  let timer: ReturnType<typeof setInterval> | null = null;
  const flush = () => {
    const at = now();
    for (const [cause, entry] of seen) {
      if (entry.more > 0) write(`[lp] ${entry.more} more internal error(s) like ${entry.first} (${entry.summary}) since; stack not repeated`);
      entry.more = 0;
      if (at - entry.since >= WINDOW_MS) seen.delete(cause);
    }
    if (seen.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  };
  return {
    report(line, error) {
      const cause = causeOf(error);
      const entry = seen.get(cause);
      if (entry && now() - entry.since < WINDOW_MS) {
        entry.more++;
        return;
      }
      if (entry?.more) flush();
      write(line, error);
      seen.delete(cause);
      if (seen.size >= MAX_CAUSES) seen.delete(seen.keys().next().value!);
      const summary = error instanceof Error ? `${error.name}${(error as NodeJS.ErrnoException).code ? ` ${(error as NodeJS.ErrnoException).code}` : ""}` : typeof error;
      seen.set(cause, { since: now(), first: /req_[0-9a-f]+/.exec(line)?.[0] ?? "the first", summary, more: 0 });
      if (!timer) {
        timer = setInterval(flush, WINDOW_MS);
        timer.unref();
      }
    },
    flush,
  };
}

/** The process's log of internal errors (the error envelope's path and the request listener's share it). */
export const internalErrorLog = createInternalErrorLog((...parts) => console.error(...parts));
