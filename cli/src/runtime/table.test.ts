import { describe, expect, it } from "vitest";
import { createColors } from "./color.js";
import { createFakeIo } from "../testing/fake-io.js";
import { formatFields, formatTable, formatTsv, toCell } from "./table.js";

const plain = createColors(createFakeIo().io, "stdout");
const rows = [{ id: "a", n: 1, tags: ["x", "y"] }, { id: "bbbb", n: null, tags: [] }];
const columns: Array<[string, (r: (typeof rows)[number]) => unknown]> = [["id", (r) => r.id], ["n", (r) => r.n], ["tags", (r) => r.tags]];

describe("tables", () => {
  it("aligns columns under an upper-case header", () => {
    expect(formatTable(rows, columns, plain)).toBe("ID    N  TAGS\na     1  x, y\nbbbb  -  -\n");
  });

  it("writes tab-separated rows without a header when piped", () => {
    expect(formatTsv(rows, columns)).toBe("a\t1\tx, y\nbbbb\t\t\n");
  });

  it("prints fields as name/value lines", () => {
    expect(formatFields(rows[0], columns, plain, false)).toBe("id\ta\nn\t1\ntags\tx, y\n");
    expect(toCell({ a: 1 }, "-")).toBe('{"a":1}');
  });

  it("colours only a terminal without NO_COLOR", () => {
    expect(createColors(createFakeIo({ tty: true }).io, "stdout").enabled).toBe(false);
    expect(createColors(createFakeIo({ tty: true, env: { NO_COLOR: undefined } }).io, "stdout").enabled).toBe(true);
    expect(createColors(createFakeIo({ tty: false, env: { NO_COLOR: undefined } }).io, "stdout").enabled).toBe(false);
  });
});
