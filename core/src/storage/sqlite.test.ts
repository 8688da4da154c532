import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../testing/temp-dirs.js";
import { inTransaction, openSqlite, prepareArrays, prepareColumn, pragmaValue, sqliteCodeOf, toBuffer } from "./sqlite.js";

const tempDir = useTempDirs();

describe("node:sqlite, as lp uses it", () => {
  it("answers rows as arrays and single columns as values, blobs as Buffers", () => {
    const db = openSqlite(":memory:");
    try {
      db.exec("CREATE TABLE t (k TEXT PRIMARY KEY, n INTEGER, b BLOB)");
      db.prepare("INSERT INTO t VALUES (?, ?, ?)").run("a", 1, Buffer.from("xy"));
      db.prepare("INSERT INTO t VALUES (@k, @n, NULL)").run({ k: "b", n: 2 });
      expect(prepareArrays<[], [string, number]>(db, "SELECT k, n FROM t ORDER BY k").all()).toEqual([["a", 1], ["b", 2]]);
      expect(prepareColumn<[string], number>(db, "SELECT n FROM t WHERE k = ?").get("b")).toBe(2);
      expect(prepareColumn<[string], number>(db, "SELECT n FROM t WHERE k = ?").get("none")).toBeUndefined();
      const blob = prepareColumn<[string], Uint8Array>(db, "SELECT b FROM t WHERE k = ?").get("a")!;
      expect(toBuffer(blob).toString("utf8")).toBe("xy");
      expect(pragmaValue(db, "journal_mode")).toBe("memory");
    } finally {
      db.close();
    }
  });

  it("commits a transaction that returns and rolls back one that throws, naming SQLite's result code", () => {
    const db = openSqlite(":memory:");
    try {
      db.exec("CREATE TABLE t (k TEXT PRIMARY KEY)");
      inTransaction(db, () => db.prepare("INSERT INTO t VALUES ('a')").run());
      let refused: unknown;
      try {
        inTransaction(db, () => {
          db.prepare("INSERT INTO t VALUES ('b')").run();
          db.prepare("INSERT INTO t VALUES ('a')").run();
        });
      } catch (error) {
        refused = error;
      }
      expect(sqliteCodeOf(refused)).toBe("SQLITE_CONSTRAINT");
      // Rolled back: a new transaction begins (`isTransaction` is Node 22.16's and newer).
      expect(() => inTransaction(db, () => db.prepare("INSERT INTO t VALUES ('c')").run())).not.toThrow();
      db.prepare("DELETE FROM t WHERE k = 'c'").run();
      expect(prepareColumn<[], string>(db, "SELECT k FROM t").all()).toEqual(["a"]);
    } finally {
      db.close();
    }
  });

  it("refuses a missing file when asked to read it, instead of creating one", () => {
    const file = `${tempDir("missing")}/none.db`;
    expect(() => openSqlite(file, { readOnly: true })).toThrow(/does not exist/);
    expect(() => openSqlite(file, { mustExist: true })).toThrow(/does not exist/);
  });

  it("prints nothing on stderr on this Node, through the query layer too (Node 22 warns that SQLite is experimental)", async () => {
    const dir = tempDir("quiet");
    const script = `import("${new URL("../db/database.ts", import.meta.url).pathname}").then(async ({ openDatabase }) => {
      const database = await openDatabase({ kind: "sqlite", file: process.argv[1] + "/lp.db" });
      const row = await database.db.selectFrom("settings").select("name").executeTakeFirst();
      console.log(JSON.stringify(row ?? {}));
      await database.close();
    })`;
    const child = spawn(process.execPath, ["--import", "tsx", "-e", script, dir], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect({ code, out: out.trim(), err }).toEqual({ code: 0, out: "{}", err: "" });
  });
});
