import { sql } from "kysely";
import { beforeEach, expect, it } from "vitest";
import { describeDatabases } from "../testing/databases.js";
import type { Database, Queries } from "./database.js";
import { preparedQuery, preparedStatement } from "./prepared-query.js";

const AT = "2026-03-01T10:00:00.000Z";

// One query for the suites of every engine below: compiled once per dialect, each database runs its dialect's SQL.
const valueOf = preparedQuery((q: Queries, name: string) => q.selectFrom("settings").select("value").where("name", "=", name));

describeDatabases("a prepared query", ({ open }) => {
  let database: Database;
  beforeEach(async () => {
    database = await open();
    await database.db
      .insertInto("settings")
      .values(["a", "b", "c"].map((name, i) => ({ name, value: `value ${i}`, created_at: AT })))
      .execute();
  });

  // A constant of the query's own (`created_at`) stays a parameter beside the arguments, in its place.
  const named = preparedQuery((q: Queries, low: string, high: string) =>
    q.selectFrom("settings").select(["name", "value"]).where("created_at", "=", AT).where("name", ">=", low).where("name", "<=", high).orderBy("name"),
  );

  it("answers as the query built anew would, for each run's arguments, in and out of a transaction", async () => {
    const built = (low: string, high: string) =>
      database.db.selectFrom("settings").select(["name", "value"]).where("created_at", "=", AT).where("name", ">=", low).where("name", "<=", high).orderBy("name").execute();
    for (const [low, high] of [["a", "b"], ["b", "c"], ["c", "a"], ["a", "z"]] as const) {
      expect(await named(database.db, low, high)).toEqual(await built(low, high));
    }
    expect(await database.transaction((tx) => named(tx, "b", "b"))).toEqual([{ name: "b", value: "value 1" }]);
  });

  it("runs writes too, and a marker never reaches the table", async () => {
    const rename = preparedQuery((q: Queries, name: string, value: string) => q.updateTable("settings").set({ value }).where("name", "=", name).returning(["name", "value"]));
    expect(await rename(database.db, "a", "first")).toEqual([{ name: "a", value: "first" }]);
    expect(await rename(database.db, "missing", "none")).toEqual([]);
    const values = (await sql<{ value: string }>`select value from settings order by name`.execute(database.db)).rows.map((r) => r.value);
    expect(values).toEqual(["first", "value 1", "value 2"]);
  });

  it("answers the rows an update changed, as a prepared statement", async () => {
    const touch = preparedStatement((q: Queries, name: string, at: string) => q.updateTable("settings").set({ created_at: at }).where("name", "=", name).where("created_at", "=", AT));
    expect(Number((await touch(database.db, "b", "2026-03-02T10:00:00.000Z")).numAffectedRows)).toBe(1);
    // Its condition no longer holds: nothing changes the second time.
    expect(Number((await touch(database.db, "b", "2026-03-03T10:00:00.000Z")).numAffectedRows)).toBe(0);
    expect(await named(database.db, "a", "c")).toEqual([{ name: "a", value: "value 0" }, { name: "c", value: "value 2" }]);
  });

  it("runs on every database of its dialect, each answering its own rows", async () => {
    const other = await open();
    await other.db.insertInto("settings").values({ name: "a", value: "the other's", created_at: AT }).execute();
    expect(await valueOf(database.db, "a")).toEqual([{ value: "value 0" }]);
    expect(await valueOf(other.db, "a")).toEqual([{ value: "the other's" }]);
    expect(await other.transaction((tx) => valueOf(tx, "b"))).toEqual([]);
  });

  it("refuses a query whose argument is not one of its parameters", async () => {
    const byColumn = preparedQuery((q: Queries, column: string) => q.selectFrom("settings").select(sql.ref<string>(column).as("picked")));
    await expect(byColumn(database.db, "name")).rejects.toThrow(/argument 0 does not reach the query as a parameter/);
    const unused = preparedQuery((q: Queries, _name: string) => q.selectFrom("settings").select("name"));
    await expect(unused(database.db, "a")).rejects.toThrow(/argument 0 does not reach the query as a parameter/);
  });
});
