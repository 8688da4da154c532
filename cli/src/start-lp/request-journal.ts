import type { JournalEntry } from "@lp/contract";
import type { JournalFilter, RequestLog } from "@lp/server";

/** Which journal entries a test means; every field narrows. */
export interface RequestFilter {
  /** `POST`, `get`: any case. */
  method?: string;
  /** A glob over the path without its query; `*` is any run of characters: `/v1/accounts/*\/products`. */
  path?: string;
  /** An exact status (`201`) or a class (`"4xx"`). */
  status?: number | string;
}

/** Options of {@link RequestJournal.waitFor}. */
export interface WaitForOptions {
  /** How long to wait, in milliseconds. Default 5000. */
  timeoutMs?: number;
  /** How many matching requests to wait for. Default 1. */
  count?: number;
}

/**
 * The API requests this server answered (its request journal: the last 500, credentials redacted, bodies cut
 * at 8 KiB): what the code under test called, and with what.
 */
export interface RequestJournal {
  /** Matching requests, newest first. */
  find(filter?: RequestFilter): JournalEntry[];
  /**
   * Resolves with the matching requests (newest first) once there are `count` of them, counting those already
   * answered; rejects after `timeoutMs` naming what was answered.
   */
  waitFor(filter?: RequestFilter, options?: WaitForOptions): Promise<JournalEntry[]>;
}

const toFilter = (filter: RequestFilter): JournalFilter => ({ method: filter.method, path: filter.path, status: filter.status === undefined ? undefined : String(filter.status) });

/** The {@link RequestJournal} over a server's journal; `close()` rejects what is still awaited. */
export function createRequestJournal(log: RequestLog, toEntry: (logged: ReturnType<RequestLog["find"]>[number]) => JournalEntry): RequestJournal & { close(): void } {
  const closers = new Set<(error: Error) => void>();
  const find = (filter: RequestFilter = {}) => log.find(toFilter(filter)).map(toEntry);
  return {
    find,
    waitFor(filter = {}, options = {}) {
      const count = options.count ?? 1;
      const timeoutMs = options.timeoutMs ?? 5000;
      const found = find(filter);
      if (found.length >= count) return Promise.resolve(found);
      return new Promise<JournalEntry[]>((resolve, reject) => {
        const done = (error: Error | null, entries?: JournalEntry[]) => {
          clearTimeout(timer);
          unsubscribe();
          closers.delete(fail);
          if (error) reject(error);
          else resolve(entries!);
        };
        const fail = (error: Error) => done(error);
        const unsubscribe = log.subscribe((entry) => {
          if (!log.matches(entry, toFilter(filter))) return;
          const now = find(filter);
          if (now.length >= count) done(null, now);
        });
        const timer = setTimeout(() => {
          const seen = log.find({ limit: 10 }).map((e) => `${e.method} ${e.path} ${e.status}`);
          done(new Error(`${find(filter).length} of ${count} matching request(s) within ${timeoutMs} ms ${JSON.stringify(filter)}; the latest answered: ${seen.join(", ") || "none"}`));
        }, timeoutMs);
        closers.add(fail);
      });
    },
    close() {
      for (const fail of [...closers]) fail(new Error("lp was closed before the awaited requests were answered"));
    },
  };
}
