import { describe, expect, it } from "vitest";
import type { BatchOp } from "../storage/create-storage.js";
import { createGroupCommit } from "./group-commit.js";

/** A write that waits until the test lets it finish, recording each group it was given. */
function heldWrites() {
  const groups: string[][] = [];
  const pending: { resolve: () => void; reject: (error: Error) => void }[] = [];
  const write = (ops: readonly BatchOp[]) =>
    new Promise<void>((resolve, reject) => {
      groups.push(ops.map((op) => op.key));
      pending.push({ resolve, reject });
    });
  return { groups, pending, write };
}

const set = (key: string): BatchOp => ({ key, value: { key } });
/** Lets the group commit start its next group (it gathers for one turn of the event loop). */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("group commit of delivery records", () => {
  it("writes what is handed in together as one group, and what comes during a write as the next one", async () => {
    const { groups, pending, write } = heldWrites();
    const commit = createGroupCommit({ write });
    const done: string[] = [];
    const first = ["a", "b", "c"].map((key) => commit.commit([set(key), { key: `${key}:marker`, remove: true }]).then(() => done.push(key)));
    await turn();
    expect(groups).toEqual([["a", "a:marker", "b", "b:marker", "c", "c:marker"]]);

    // Handed in while the first group is being written: they wait, then go together.
    const second = ["d", "e"].map((key) => commit.commit([set(key)]).then(() => done.push(key)));
    await turn();
    expect(groups).toHaveLength(1);
    expect(done).toEqual([]);

    pending[0].resolve();
    await Promise.all(first);
    expect(done).toEqual(["a", "b", "c"]);
    await turn();
    expect(groups[1]).toEqual(["d", "e"]);
    expect(done).toEqual(["a", "b", "c"]);
    pending[1].resolve();
    await Promise.all(second);
    expect(done).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("a failed write fails every caller of its group, and the next group is still written", async () => {
    const { groups, pending, write } = heldWrites();
    const commit = createGroupCommit({ write });
    const failed = ["a", "b"].map((key) => commit.commit([set(key)]));
    await turn();
    const later = commit.commit([set("c")]);
    pending[0].reject(new Error("disk full"));
    for (const outcome of await Promise.allSettled(failed)) expect(outcome).toMatchObject({ status: "rejected", reason: { message: "disk full" } });
    await turn();
    expect(groups).toEqual([["a", "b"], ["c"]]);
    pending[1].resolve();
    await expect(later).resolves.toBeUndefined();
    await commit.flush();
  });
});
