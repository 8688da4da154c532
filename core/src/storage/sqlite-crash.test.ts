import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../testing/temp-dirs.js";
import { createStores } from "./create-storage.js";

const tempDir = useTempDirs();

/** The record a writer stores at `seq`: large every other time, with a digest that only a whole record matches. */
const CHECK = `(seq) => { const pad = String(seq).repeat(seq % 2 ? 200 : 200_000); return { seq, pad, check: require("node:crypto").createHash("sha256").update(seq + "|" + pad).digest("hex") }; }`;
const isWhole = (v: { seq: number; pad: string; check: string }) => v.check === createHash("sha256").update(`${v.seq}|${v.pad}`).digest("hex");

/**
 * A child process writes one hot record and a new record per step through the SQLite store, printing each
 * sequence number once its write has resolved, and is killed with SIGKILL mid-write: every write it saw
 * acknowledged must be there after a reopen, and every record must be whole.
 */
describe("the SQLite store killed mid-write", () => {
  it.each([1, 2, 3])("keeps every acknowledged write and no torn record (kill %i)", async (round) => {
    const dir = tempDir("sqlite-crash");
    const script = `const { createRequire } = require("node:module"); const value = ${CHECK};
      import("${new URL("./create-storage.ts", import.meta.url).pathname}").then(async ({ createStores }) => {
        const stores = createStores("sqlite", process.argv[1]);
        for (let seq = 0; ; seq++) {
          await stores.batch([{ key: "hot:record", value: value(seq) }, { key: "seq:" + seq, value: value(seq) }]);
          process.stdout.write("wrote " + seq + "\\n");
        }
      });`;
    const child = spawn(process.execPath, ["--import", "tsx", "-e", script, dir], { stdio: ["ignore", "pipe", "inherit"] });
    let acked = -1;
    let out = "";
    const target = 20 + round * 17;
    await new Promise<void>((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk;
        const seen = [...out.matchAll(/wrote (\d+)/g)].map((m) => Number(m[1]));
        acked = seen.length ? seen[seen.length - 1]! : -1;
        if (acked >= target) resolve();
      });
    });
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    const stores = createStores("sqlite", dir);
    try {
      const hot = (await stores.data.getItem("hot:record")) as { seq: number; pad: string; check: string };
      expect(hot.seq).toBeGreaterThanOrEqual(acked);
      expect(isWhole(hot)).toBe(true);
      const keys = await stores.data.getKeys("seq");
      for (let seq = 0; seq <= acked; seq++) expect(keys).toContain(`seq:${seq}`);
      for (const key of keys) expect(isWhole((await stores.data.getItem(key)) as { seq: number; pad: string; check: string }), key).toBe(true);
    } finally {
      await stores.dispose();
    }
  });
});
