import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createStores, toStorage } from "./create-storage.js";
import { fsDurableDriver } from "./fs-durable-driver.js";
import { encodeFrame } from "./fs-wal-frames.js";
import { segmentName } from "./fs-wal.js";
import { walValue } from "./fs-wal-writer.fixture.js";

const writer = fileURLToPath(new URL("./fs-wal-writer.fixture.ts", import.meta.url));
/** Limits under which a test's log is never checkpointed: what it wrote stays in the log for the next driver. */
const NO_CHECKPOINT = { checkpointMs: 3_600_000, segmentBytes: 1 << 30, maxBytes: 1 << 30 };
const segments = (base: string) => (existsSync(join(base, ".wal")) ? readdirSync(join(base, ".wal")).filter((n) => n.endsWith(".log")) : []);

/** Every record file under `dir` (the driver's own `.tmp` and `.wal` left out). */
function recordFiles(dir: string, top = true): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (top && (e.name === ".tmp" || e.name === ".wal")) return [];
    return e.isDirectory() ? recordFiles(join(dir, e.name), false) : [join(dir, e.name)];
  });
}

/** Runs the writer until it has acknowledged `acks` writes, SIGKILLs it; returns the last acknowledged n per writer. */
function runAndKill(base: string, acks: number): Promise<Map<number, number>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", writer, base], { stdio: ["ignore", "pipe", "pipe"] });
    const last = new Map<number, number>();
    let seen = 0;
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      for (const m of chunk.matchAll(/ack (\d+) (\d+)/g)) {
        last.set(Number(m[1]), Number(m[2]));
        seen++;
      }
      // Killed at once, mid-writes: more commits are in flight, some logged and not yet in their files.
      if (seen >= acks) child.kill("SIGKILL");
    });
    child.on("exit", (code, signal) => (signal === "SIGKILL" ? resolve(last) : reject(new Error(`writer exited with ${code}: ${stderr}`))));
  });
}

describe("fs write-ahead log", () => {
  let base: string;
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), "lp-wal-"));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it("after a kill -9 mid-writes, replay restores every acknowledged write even when no record file survived", { timeout: 60_000 }, async () => {
    const acked = await runAndKill(base, 400);
    expect(segments(base).length).toBeGreaterThan(0);
    // As after a power loss that kept the flushed log and none of the unflushed record files.
    for (const file of recordFiles(base)) rmSync(file);
    const storage = toStorage(fsDurableDriver({ base }));
    for (const [w, n] of acked) {
      const value = (await storage.getItem(`w:k${w}`)) as ReturnType<typeof walValue>;
      // The acknowledged write or the one after it (logged, not yet acknowledged when the kill came).
      expect([n, n + 1]).toContain(value.n);
      expect(value).toEqual(walValue(w, value.n));
    }
    const shared = (await storage.getItem("w:shared")) as ReturnType<typeof walValue>;
    expect(shared).toEqual(walValue(shared.writer, shared.n));
    // Replayed into files, made durable, and the log dropped.
    expect(segments(base)).toEqual([]);
    expect(recordFiles(base).length).toBe(17);
  });

  it("ignores a torn tail and applies frames in order: a key written twice ends with the later text", () => {
    mkdirSync(join(base, ".wal"), { recursive: true });
    const first = encodeFrame([{ kind: "text", key: "a:x", value: '{"v":1}' }, { kind: "text", key: "a:y", value: '{"v":"y"}' }]);
    const second = encodeFrame([{ kind: "text", key: "a:x", value: '{"v":2}' }, { kind: "remove", key: "a:y" }]);
    const torn = encodeFrame([{ kind: "text", key: "a:x", value: '{"v":"torn"}' }]);
    writeFileSync(join(base, ".wal", segmentName(7)), Buffer.concat([first, second]));
    // A later segment: its last frame cut short by the crash, and one with a flipped byte after it.
    const third = encodeFrame([{ kind: "text", key: "a:z", value: '{"v":3}' }]);
    writeFileSync(join(base, ".wal", segmentName(8)), Buffer.concat([third, torn.subarray(0, torn.byteLength - 3)]));
    const flipped = Buffer.from(encodeFrame([{ kind: "text", key: "a:w", value: '{"v":"bad"}' }]));
    flipped[flipped.byteLength - 2] ^= 0xff;
    appendFileSync(join(base, ".wal", segmentName(9)), flipped);
    const storage = toStorage(fsDurableDriver({ base, cache: false }));
    return (async () => {
      expect(await storage.getItem("a:x")).toEqual({ v: 2 });
      expect(await storage.getItem("a:y")).toBeNull();
      expect(await storage.getItem("a:z")).toEqual({ v: 3 });
      expect(await storage.getItem("a:w")).toBeNull();
      expect(segments(base)).toEqual([]);
    })();
  });

  it("a clear is replayed in its place: nothing written before it comes back, what came after stays", async () => {
    const first = toStorage(fsDurableDriver({ base, logLimits: NO_CHECKPOINT }));
    await first.setItem("acct:a:p1", { v: 1 });
    await first.setItem("acct:b:p1", { v: "b" });
    await first.clear("acct:a");
    await first.setItem("acct:a:p2", { v: 2 });
    await first.getKeys("acct"); // every file written
    expect(segments(base).length).toBe(1);
    // Opened as after a crash: the first driver never checkpointed, so the whole history is replayed.
    const next = toStorage(fsDurableDriver({ base }));
    expect(await next.getItem("acct:a:p1")).toBeNull();
    expect(await next.getItem("acct:a:p2")).toEqual({ v: 2 });
    expect(await next.getItem("acct:b:p1")).toEqual({ v: "b" });
    expect((await next.getKeys("acct")).sort()).toEqual(["acct:a:p2", "acct:b:p1"]);
  });

  it("reads answer acknowledged writes before their files are written, and a clean stop leaves no log", async () => {
    const storage = toStorage(fsDurableDriver({ base, logLimits: NO_CHECKPOINT }));
    await Promise.all(Array.from({ length: 50 }, (_, i) => storage.setItem(`r:k${i}`, { i })));
    await storage.removeItem("r:k0");
    for (let i = 1; i < 50; i++) expect(await storage.getItem(`r:k${i}`)).toEqual({ i });
    expect(await storage.hasItem("r:k0")).toBe(false);
    expect((await storage.getKeys("r")).length).toBe(49);
    await storage.dispose();
    expect(segments(base)).toEqual([]);
    expect(recordFiles(base).length).toBe(49);
  });

  it("keeps its log owner-only: segments 0600, the folder 0700", async () => {
    const storage = toStorage(fsDurableDriver({ base, logLimits: NO_CHECKPOINT }));
    await storage.setItem("m:k", { v: 1 });
    await storage.getKeys("m");
    expect(statSync(join(base, ".wal")).mode & 0o777).toBe(0o700);
    for (const name of segments(base)) expect(statSync(join(base, ".wal", name)).mode & 0o777).toBe(0o600);
    for (const file of recordFiles(base)) expect(statSync(file).mode & 0o777).toBe(0o600);
    await storage.dispose();
  });

  it("an import swaps in a data folder with no log, and the old folder's log is checkpointed first", async () => {
    const stores = createStores("fs", base);
    await stores.data.setItem("meta:owner", { v: "kept" });
    await stores.data.setItem("acct:a:products:p1", { v: "old" });
    await stores.replace!({ "acct:a:products:p2": { v: "new" } }, {});
    expect(segments(join(base, "data"))).toEqual([]);
    expect(await stores.data.getItem("acct:a:products:p1")).toBeNull();
    await stores.data.setItem("acct:a:products:p3", { v: "after" });
    await stores.dispose();
    expect(segments(join(base, "data"))).toEqual([]);
    const reopened = createStores("fs", base);
    expect((await reopened.data.getKeys("acct")).sort()).toEqual(["acct:a:products:p2", "acct:a:products:p3"]);
    expect(await reopened.data.getItem("meta:owner")).toEqual({ v: "kept" });
    await reopened.dispose();
    expect(readFileSync(join(base, "data", "acct", "a", "products", "p3"), "utf8")).toBe('{"v":"after"}');
  });
});
