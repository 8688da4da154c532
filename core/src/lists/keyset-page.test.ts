import { sql, type Kysely } from "kysely";
import { beforeEach, expect, it } from "vitest";
import { describeDatabases } from "../testing/databases.js";
import { createCursorCodec, type KeysetPosition } from "./cursor.js";
import { selectKeysetPage, toPagination, type KeysetOrder, type KeysetPage } from "./keyset-page.js";

type Rows = {
  keyset_rows: { id: string; k: string; n: number };
};
type Row = Rows["keyset_rows"];

// Keys repeat (a, b, b, b, c), so pages end inside a run of equal keys and the tiebreak decides.
const ROWS: Row[] = [
  { id: "r1", k: "b", n: 1 },
  { id: "r2", k: "a", n: 2 },
  { id: "r3", k: "b", n: 3 },
  { id: "r4", k: "c", n: 4 },
  { id: "r5", k: "b", n: 5 },
];

describeDatabases("keyset pages", ({ open }) => {
  let db: Kysely<Rows>;
  beforeEach(async () => {
    const database = await open();
    db = database.db.withTables<Rows>();
    await db.schema.createTable("keyset_rows").addColumn("id", "text", (c) => c.primaryKey()).addColumn("k", "text", (c) => c.notNull()).addColumn("n", "integer", (c) => c.notNull()).execute();
    await db.insertInto("keyset_rows").values(ROWS).execute();
  });

  /** Every page of a listing of size `limit`, each from the position the one before gave. */
  async function walk(order: KeysetOrder<Rows, "keyset_rows", Row>, limit: number): Promise<KeysetPage<Row>[]> {
    const pages: KeysetPage<Row>[] = [];
    let after: KeysetPosition | undefined;
    do {
      const page = await selectKeysetPage(db.selectFrom("keyset_rows").selectAll(), order, { after, limit });
      pages.push(page);
      after = page.next ?? undefined;
    } while (after && pages.length <= ROWS.length);
    return pages;
  }
  const position = (row: Row) => ({ value: row.k, id: row.id });
  const ids = (pages: KeysetPage<Row>[]) => pages.map((p) => p.items.map((r) => r.id));

  it("walks the key and the tiebreak in either direction, each row once, and knows the last page", async () => {
    const down = await walk({ key: "k", tiebreak: "id", descending: true, position }, 2);
    expect(ids(down)).toEqual([["r4", "r5"], ["r3", "r1"], ["r2"]]);
    expect(down.map((p) => [p.hasMore, p.next])).toEqual([
      [true, { value: "b", id: "r5" }],
      [true, { value: "b", id: "r1" }],
      [false, null],
    ]);
    const up = await walk({ key: "k", tiebreak: "id", descending: false, position }, 2);
    expect(ids(up)).toEqual([["r2", "r1"], ["r3", "r5"], ["r4"]]);
  });

  it("pages on a unique key without a tiebreak, and on an expression of the row", async () => {
    const byNumber = await walk({ key: "n", tiebreak: null, descending: false, position: (row) => ({ value: row.n, id: row.id }) }, 3);
    expect(ids(byNumber)).toEqual([["r1", "r2", "r3"], ["r4", "r5"]]);
    const negated = await walk({ key: sql`-n`, tiebreak: "id", descending: false, position: (row) => ({ value: -row.n, id: row.id }) }, 3);
    expect(ids(negated)).toEqual([["r5", "r4", "r3"], ["r2", "r1"]]);
  });

  it("goes on from the last row that has a position, and ends a page that has none", async () => {
    const query = db.selectFrom("keyset_rows").selectAll();
    const skipping = await selectKeysetPage(query, { key: "n", tiebreak: "id", descending: false, position: (row) => (row.n === 3 ? undefined : { value: row.n, id: row.id }) }, { limit: 3 });
    expect(skipping).toMatchObject({ hasMore: true, next: { value: 2, id: "r2" } });
    const none = await selectKeysetPage(query, { key: "n", tiebreak: "id", descending: false, position: () => undefined }, { limit: 3 });
    expect(none).toMatchObject({ hasMore: true, next: null });
    const codec = createCursorCodec(Buffer.alloc(32, 1));
    expect(toPagination(none, codec, {})).toEqual({ next_cursor: null, has_more: true });
    expect(codec.decode(toPagination(skipping, codec, { sort: "n" }).next_cursor!, { sort: "n" })).toEqual({ value: 2, id: "r2" });
  });
});
