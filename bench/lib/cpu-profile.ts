import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { fileURLToPath } from "node:url";
import { ROOT } from "./root.js";

/** A V8 `.cpuprofile` as `node --cpu-prof` writes it. */
interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }; children?: number[] }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/**
 * A span of the monotonic clock in µs (`process.hrtime.bigint() / 1000n`, the clock V8 stamps samples with,
 * the same in every process of the machine): only samples inside it count.
 */
export type Window = readonly [startUs: number, endUs: number];

/** Each sample's µs, or 0 when it lies outside `window`. */
function sampleTimes(profile: Profile, window?: Window): number[] {
  let t = profile.startTime;
  return profile.timeDeltas.map((delta) => {
    t += delta;
    return !window || (t >= window[0] && t <= window[1]) ? delta : 0;
  });
}

const NODE = "node http, net, streams (no lp or h3 caller)";

/** Areas a sample is charged to, by the first matching frame from the leaf up (source path or function). */
const AREAS: [string, RegExp][] = [
  ["GC", /^\(garbage collector\)$/],
  ["socket write (writev syscall, loopback delivery)", /^writev$/],
  ["idle", /^\((idle|program)\)$/],
  ["dashboard request log", /dashboard\/|request-log|redact/],
  ["request id, timing, access log (app hooks)", /server\/src\/app\.ts|core\/src\/deps\.ts/],
  ["auth (token check, hashing)", /auth|accounts-service|sha256|createHash|timingSafeEqual/],
  ["database (Kysely, node:sqlite or pg, statement hooks and guards)", /node_modules\/(kysely|pg|pg-protocol)\/|core\/src\/db\/|core\/src\/storage\//],
  ["media blobs (unstorage)", /unstorage|core\/src\/media\/|drivers\/memory|normalizeKey/],
  ["repositories (queries, rows to records)", /-repository\.ts|delivery-rows|delivery-claims/],
  ["webhook events, fan-out, deliveries", /core\/src\/webhooks\/|core\/src\/events\//],
  ["checkout rate windows", /core\/src\/ports\//],
  ["keyset lists, cursors", /core\/src\/lists\//],
  ["request validation (zod)", /node_modules\/zod/],
  ["product view / service", /products-service|product-view|products\//],
  ["site lookup, HTML answer", /sites-service|http\/html|routes\/sites/],
  ["lp pipeline, envelope, respond", /http\/pipeline|http\/respond|http\/errors|routes\//],
  ["h3 / srvx routing and response", /node_modules\/(h3|srvx|rou3|cookie-es)/],
  [NODE, /^node:|internal\/|_http_|net\.js|stream/],
];

/** The profile's samples other than idle, in µs: the CPU time its thread was seen running. */
export function threadBusyUs(profile: Profile, window?: Window): number {
  const idle = new Set(profile.nodes.filter((n) => /^\((idle|program)\)$/.test(n.callFrame.functionName)).map((n) => n.id));
  const times = sampleTimes(profile, window);
  return profile.samples.reduce((sum, id, i) => sum + (idle.has(id) ? 0 : (times[i] ?? 0)), 0);
}

/**
 * Self time per function (top 25) and per area, in µs per request. A sample's area is decided by its
 * stack: the innermost frame that matches an area, so library code called from auth counts as auth. With
 * `window`, only the samples taken in it (the load, not the process's start-up).
 */
export function summarise(profile: Profile, requests: number, window?: Window): string {
  // Frames of a bundle (core/src/testing/bundle-entry.ts writes its source map beside it) get their source file's path.
  const maps = new Map<string, SourceMap | null>();
  for (const node of profile.nodes) {
    const f = node.callFrame;
    if (!f.url.endsWith(".mjs") || !f.url.includes("lp-bundles")) continue;
    if (!maps.has(f.url)) {
      const file = `${fileURLToPath(f.url)}.map`;
      maps.set(f.url, existsSync(file) ? new SourceMap(JSON.parse(readFileSync(file, "utf8"))) : null);
    }
    const entry = maps.get(f.url)?.findEntry(f.lineNumber, f.columnNumber) as { originalSource?: string; originalLine?: number } | undefined;
    if (entry?.originalSource) {
      // Sources are relative to the bundle: resolve them, then name them from the repository's root.
      const source = fileURLToPath(new URL(entry.originalSource, f.url));
      const root = ROOT.endsWith("/") ? ROOT : `${ROOT}/`;
      f.url = source.startsWith(root) ? source.slice(root.length) : source;
      f.lineNumber = entry.originalLine ?? f.lineNumber;
    }
  }
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  const times = sampleTimes(profile, window);
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (times[i] ?? 0)));
  const label = (id: number) => {
    const f = byId.get(id)!.callFrame;
    return `${f.functionName || "(anonymous)"} ${f.url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*\/(?=[^/]+\/[^/]+$)/, "")}:${f.lineNumber + 1}`;
  };
  // Node's own frames (socket writes, crypto, timers) are charged to the nearest caller that belongs to
  // an area, so a timer or a crypto call counts for its caller; frames with no such caller stay Node's.
  const areaOf = (id: number): string => {
    let fallback = "other";
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      for (const [area, re] of AREAS) {
        if (!re.test(f.functionName) && !re.test(f.url)) continue;
        if (area !== NODE) return area;
        if (fallback === "other") fallback = NODE;
      }
      if (f.url === "" && cur === id && fallback === "other") fallback = NODE;
    }
    return fallback;
  };
  const fn = new Map<string, number>();
  const area = new Map<string, number>();
  for (const [id, us] of self) {
    fn.set(label(id), (fn.get(label(id)) ?? 0) + us);
    const a = areaOf(id);
    area.set(a, (area.get(a) ?? 0) + us);
  }
  const per = (us: number) => (us / requests).toFixed(1).padStart(7);
  const busy = [...area].filter(([a]) => a !== "idle").reduce((s, [, us]) => s + us, 0);
  const lines = [`busy CPU per request: ${(busy / requests).toFixed(1)} µs`, "", "µs/req  area"];
  for (const [a, us] of [...area].sort((x, y) => y[1] - x[1])) lines.push(`${per(us)}  ${a}`);
  lines.push("", "µs/req  function (self time)");
  for (const [f, us] of [...fn].sort((x, y) => y[1] - x[1]).slice(0, 25)) lines.push(`${per(us)}  ${f}`);
  return lines.join("\n");
}
