import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import { openSqlite, prepareArrays } from "./sqlite.js";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../testing/temp-dirs.js";
import { openSqliteDrivers } from "../testing/sqlite-drivers.js";
import { DATABASE_FILE, openDatabase } from "./sqlite-database.js";
import { endWriterThread, SqliteWriter, SqliteWriteError, WAL_LIMIT_BYTES, type WriteOp } from "./sqlite-writer.js";

const writers: SqliteWriter[] = [];
const tempDir = useTempDirs(async () => void (await Promise.all(writers.splice(0).map((w) => w.close()))));

/** A writer on a fresh database, and a way to count its rows from another connection. */
function fresh() {
  const dir = tempDir("writer");
  const file = join(dir, DATABASE_FILE);
  openDatabase(file).close();
  const writer = new SqliteWriter({ file, dir });
  writers.push(writer);
  const rows = () => {
    const db = openSqlite(file, { readOnly: true });
    try {
      return prepareArrays<[], [string, string]>(db, "SELECT key, value FROM records ORDER BY key").all();
    } finally {
      db.close();
    }
  };
  return { dir, file, writer, rows };
}

const put = (key: string, value: unknown): WriteOp => ["put", key, key.slice(0, key.lastIndexOf(":")), JSON.stringify(value)];

describe("the SQLite writer thread", () => {
  it("commits concurrent changes, each whole, and a change of several ops all or nothing", async () => {
    const { writer, rows } = fresh();
    await Promise.all(Array.from({ length: 50 }, (_, i) => writer.write([put(`c:a:${i}`, { i }), put(`c:b:${i}`, { i })])));
    expect(rows()).toHaveLength(100);
    // A NOT NULL text makes this change fail inside SQLite: neither of its two ops lands.
    const broken = writer.write([put("c:x:1", { x: 1 }), ["put", "c:x:2", "c:x", null as unknown as string]]);
    const others = Promise.all([writer.write([put("c:y:1", { y: 1 })]), writer.write([["del", "c:a:0"]])]);
    await expect(broken).rejects.toBeInstanceOf(SqliteWriteError);
    await others;
    const keys = rows().map(([key]) => key);
    expect(keys).not.toContain("c:x:1");
    expect(keys).toContain("c:y:1");
    expect(keys).not.toContain("c:a:0");
  });

  it("wipes every record but the meta ones, and every media file, in the same change as what replaces them", async () => {
    const { writer, rows } = fresh();
    await writer.write([put("meta:k", { k: 1 }), put("acct:a:p:1", { p: 1 }), ["media", "m:1.png", new Uint8Array([1, 2])]]);
    await writer.write([["wipe"], put("acct:a:p:2", { p: 2 })]);
    expect(rows().map(([key]) => key)).toEqual(["acct:a:p:2", "meta:k"]);
  });

  it("cuts the log back once a change larger than its limit is checkpointed, at the next write", async () => {
    const { file, writer, rows } = fresh();
    const text = "x".repeat(64 * 1024);
    // One change of 24 MB: the log grows past it, and SQLite checkpoints it right after the commit.
    await writer.write(Array.from({ length: 384 }, (_, i) => put(`c:big:${i}`, { text })));
    const grown = statSync(`${file}-wal`).size;
    expect(grown).toBeGreaterThan(3 * WAL_LIMIT_BYTES);
    await writer.write([put("c:small:1", { small: 1 })]);
    const after = statSync(`${file}-wal`).size;
    expect(after).toBeLessThanOrEqual(WAL_LIMIT_BYTES);
    expect(rows()).toHaveLength(385);
  });

  it("starts again after its thread ends: the next write opens the database on a new thread and goes through", async () => {
    const { writer, rows } = fresh();
    await writer.write([put("c:a:1", { a: 1 })]);
    await endWriterThread();
    await writer.write([put("c:a:2", { a: 2 })]);
    expect(rows().map(([key]) => key)).toEqual(["c:a:1", "c:a:2"]);
  });

  it("serves several databases from one thread, each change in its own database", async () => {
    const [a, b] = [fresh(), fresh()];
    await Promise.all([a.writer.write([put("c:a:1", { a: 1 })]), b.writer.write([put("c:b:1", { b: 1 })]), a.writer.write([put("c:a:2", { a: 2 })])]);
    expect(a.rows().map(([key]) => key)).toEqual(["c:a:1", "c:a:2"]);
    expect(b.rows().map(([key]) => key)).toEqual(["c:b:1"]);
    await a.writer.close();
    await expect(a.writer.write([put("c:a:3", {})])).rejects.toThrow(/closed/);
    await b.writer.write([put("c:b:2", { b: 2 })]);
    expect(b.rows()).toHaveLength(2);
  });

  it("keeps no process alive once its writes are answered", async () => {
    const dir = tempDir("writer-exit");
    const script = `import("${new URL("../testing/sqlite-drivers.ts", import.meta.url).pathname}").then(async ({ openSqliteDrivers }) => {
      const drivers = openSqliteDrivers(process.argv[1]);
      await drivers.records.setItem("a:b", "{}", {});
      console.log("written");
    })`;
    const child = spawn(process.execPath, ["--import", "tsx", "-e", script, dir], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(out).toContain("written");
    expect(code).toBe(0);
    const drivers = openSqliteDrivers(dir);
    expect(await drivers.records.getItem("a:b", {})).toBe("{}");
    await drivers.close();
  });
});
