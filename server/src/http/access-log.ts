/** Where access-log text goes: one or more lines, without the final newline. */
export type LogSink = (lines: string) => void;

/** Most entries held before a write, whatever the event loop does. */
const MAX_PENDING = 512;

/** The access log of a server: `record()` per answer, lines written in batches. */
export interface AccessLog {
  /** Notes one answered request; formatting and writing wait for the batch. */
  record(method: string, path: string, status: number, ms: number, requestId: string): void;
  /** Writes what is pending now (on close, or before a test reads the log). */
  flush(): void;
}

/**
 * Buffers the access log: a request costs pushing five values; the lines are formatted and handed to
 * `sink` in one call once the current burst of I/O has been handled (setImmediate), or at 512 entries.
 * Writing each line at once cost a synchronous write to stderr per request (a pipe or a file is written
 * synchronously by Node), a fifth of GET throughput (docs/performance.md).
 */
export function createAccessLog(sink: LogSink): AccessLog {
  // Flat columns rather than an object per entry: nothing for the GC to trace between flushes.
  let pending: Array<string | number> = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const entries = pending;
    pending = [];
    let text = "";
    for (let i = 0; i < entries.length; i += 5) {
      text += `${i ? "\n" : ""}${entries[i]} ${entries[i + 1]} ${entries[i + 2]} ${(entries[i + 3] as number).toFixed(1)}ms ${entries[i + 4]}`;
    }
    try {
      sink(text);
    } catch {
      // A failing log never changes an answer or stops the server.
    }
  };
  return {
    record(method, path, status, ms, requestId) {
      pending.push(method, path, status, ms, requestId);
      if (pending.length >= MAX_PENDING * 5) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}
