import { expect, it } from "vitest";
import type { DomainEvent, EventSink } from "../events/event-sink.js";
import { describeDatabases } from "../testing/databases.js";
import { combineSinks } from "./create-webhooks.js";

const event = (type: string): DomainEvent => ({ type, account_id: "acct_1", data: {} });

/** Sinks that store nothing (the dashboard's tap) hear of a change once it has committed, never of one rolled back. */
describeDatabases("combined event sinks", ({ open }) => {
  it("records in the change's transaction, and tells the others after its commit only", async () => {
    const database = await open();
    const recorded: string[] = [];
    const told: string[] = [];
    const storing: EventSink = { emit: async () => {}, record: async (_tx, e) => void recorded.push(e.type) };
    const tap: EventSink = { emit: async (e) => void told.push(e.type) };
    const sink = combineSinks(tap, storing);
    await database.transaction(async (tx) => {
      await sink.record!(tx, event("product.created"));
      expect(recorded).toEqual(["product.created"]);
      // Still in the transaction: what the tap would read (or tell another process to read) is not there yet.
      expect(told).toEqual([]);
    });
    expect(told).toEqual(["product.created"]);
    await expect(
      database.transaction(async (tx) => {
        await sink.record!(tx, event("product.deleted"));
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(told).toEqual(["product.created"]);
  });
});
