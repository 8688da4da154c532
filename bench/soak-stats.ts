import { readFileSync } from "node:fs";

/** The figures of one reporting window. */
export interface WindowStats {
  index: number;
  /** Seconds since the load started, at the window's start and end. */
  from: number;
  to: number;
  requests: number;
  errors: number;
  p50: number;
  p99: number;
  /** Distinct webhook events the receiver got during the window. */
  webhooks: number;
  /** Server RSS, MB: the median and the highest of the samples taken during the window, and the last one. */
  rssMedian: number;
  rssMax: number;
  rssEnd: number;
  /** Server heap in use after a forced full GC at the window's end, MB (filled in once measured). */
  heapMb: number;
  /** The size V8 gives the server's young generation then, MB: part of its RSS, doubled by V8 under a steady load. */
  newSpaceMb: number;
}

/** Collects request outcomes and cuts them into windows. */
export interface WindowRecorder {
  record(latencyMs: number, ok: boolean): void;
  /** Adds one RSS sample (MB) to the current window. */
  sampleRss(mb: number): void;
  /** Closes the current window at `to` seconds with the webhook count and starts the next. */
  cut(to: number, webhooks: number): WindowStats;
}

/** The value at quantile `q` (0..1) of ascending `sorted`; NaN when empty. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** Creates a recorder whose first window starts at 0 s. */
export function createWindowRecorder(): WindowRecorder {
  let latencies: number[] = [];
  let rss: number[] = [];
  let errors = 0;
  let index = 0;
  let from = 0;
  return {
    record(latencyMs, ok) {
      latencies.push(latencyMs);
      if (!ok) errors++;
    },
    sampleRss(mb) {
      if (Number.isFinite(mb)) rss.push(mb);
    },
    cut(to, webhooks) {
      const sorted = latencies.sort((a, b) => a - b);
      const rssEnd = rss.length ? rss[rss.length - 1] : NaN;
      const rssSorted = rss.sort((a, b) => a - b);
      const stats: WindowStats = {
        index: ++index,
        from,
        to,
        requests: sorted.length,
        errors,
        p50: quantile(sorted, 0.5),
        p99: quantile(sorted, 0.99),
        webhooks,
        rssMedian: quantile(rssSorted, 0.5),
        rssMax: rssSorted.length ? rssSorted[rssSorted.length - 1] : NaN,
        rssEnd,
        heapMb: NaN,
        newSpaceMb: NaN,
      };
      latencies = [];
      rss = [];
      errors = 0;
      from = to;
      return stats;
    },
  };
}

/** Resident set size of a process in MB from /proc/<pid>/status (VmRSS); NaN where there is no /proc. */
export function readRssMb(pid: number): number {
  try {
    const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
    return kb > 0 ? kb / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Parses `60s`, `5m`, `90000ms` or a bare number of seconds into milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new Error(`Not a duration: ${text} (use 60s, 5m, 90000ms)`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] ?? "s"]!;
  return Math.round(Number(match[1]) * unit);
}

const fixed = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "n/a");

/** Formats the windows as an aligned Markdown table. */
export function formatWindows(windows: readonly WindowStats[]): string {
  const head = ["window", "requests", "req/s", "errors", "p50 ms", "p99 ms", "webhooks", "RSS median MB", "RSS max MB", "RSS end MB", "heap after GC MB", "V8 young gen. MB"];
  const rows = windows.map((w) => [
    `${w.index} (${Math.round(w.from)}-${Math.round(w.to)} s)`,
    String(w.requests),
    fixed(w.requests / Math.max(1e-9, w.to - w.from)),
    String(w.errors),
    fixed(w.p50),
    fixed(w.p99),
    String(w.webhooks),
    fixed(w.rssMedian),
    fixed(w.rssMax),
    fixed(w.rssEnd),
    fixed(w.heapMb),
    fixed(w.newSpaceMb),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  return [line(head), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.map(line)].join("\n");
}
