import { describe, expect, it } from "vitest";
import { createCursorCodec } from "./cursor.js";

const codec = createCursorCodec(Buffer.alloc(32, 1));
const binding = { sort: "-price", filters: { q: "lamp" } };

describe("cursor codec", () => {
  it("round-trips string, number and null positions", () => {
    for (const value of ["Lamp ✓", 12.5, 0, null, "2026-01-01T00:00:00.000Z"]) {
      const cursor = codec.encode({ value, id: "3f2b8c1e-1d2a-4c3b-9e8f-0a1b2c3d4e5f" }, binding);
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
      expect(codec.decode(cursor, binding)).toEqual({ value, id: "3f2b8c1e-1d2a-4c3b-9e8f-0a1b2c3d4e5f" });
    }
  });

  it("refuses a cursor used with another sort or other filters", () => {
    const cursor = codec.encode({ value: 3, id: "x" }, binding);
    for (const other of [{ sort: "price", filters: { q: "lamp" } }, { sort: "-price", filters: {} }, { sort: "-price", filters: { q: "Lamp" } }]) {
      expect(() => codec.decode(cursor, other)).toThrow(expect.objectContaining({ code: "invalid_cursor" }));
    }
  });

  it("refuses tampered, forged and malformed cursors", () => {
    const cursor = codec.encode({ value: 3, id: "x" }, binding);
    const [body, sig] = cursor.split(".");
    const other = createCursorCodec(Buffer.alloc(32, 2)).encode({ value: 3, id: "x" }, binding);
    const reSigned = (payload: unknown) => {
      const b = Buffer.from(JSON.stringify(payload)).toString("base64url");
      return `${b}.${sig}`;
    };
    const bad = [other, `${body}x.${sig}`, `${body}.${sig}x`, body, `${cursor}.`, "", ".", "..", reSigned([3, "y", "z"]), "%%%.###", "a".repeat(2000)];
    for (const c of bad) expect(() => codec.decode(c, binding), c).toThrow(expect.objectContaining({ code: "invalid_cursor" }));
  });
});
