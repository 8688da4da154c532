import { describe, expect, it } from "vitest";
import { createInFlightSlots } from "./in-flight-slots.js";

/** A promise and the functions that settle it, so the test decides when each task ends. */
function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("in-flight slots", () => {
  it("runs at most `limit` tasks at once, the rest in arrival order, and frees a slot when a task fails", async () => {
    const slots = createInFlightSlots(2);
    const started: number[] = [];
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const runs = gates.map((gate, i) =>
      slots.run(async () => {
        started.push(i);
        await gate.promise;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(slots.active).toBe(2);
    gates[1].reject(new Error("refused"));
    await expect(runs[1]).rejects.toThrow("refused");
    expect(started).toEqual([0, 1, 2]);
    gates[0].resolve();
    await expect(runs[0]).resolves.toBe(0);
    expect(started).toEqual([0, 1, 2, 3]);
    gates[2].resolve();
    gates[3].resolve();
    await expect(Promise.all(runs.slice(2))).resolves.toEqual([2, 3]);
    expect(slots.active).toBe(0);
  });
});

describe("in-flight slots, limit changed", () => {
  it("lets waiters in when the limit rises, and admits no new one while over a lowered limit", async () => {
    const slots = createInFlightSlots(1);
    const started: number[] = [];
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const runs = gates.map((gate, i) => slots.run(async () => {
      started.push(i);
      await gate.promise;
    }));
    await Promise.resolve();
    expect(started).toEqual([0]);
    slots.setLimit(3);
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    slots.setLimit(1);
    gates[0].resolve();
    gates[1].resolve();
    await Promise.all(runs.slice(0, 2));
    expect(started).toEqual([0, 1, 2]);
    gates[2].resolve();
    await runs[2];
    expect(started).toEqual([0, 1, 2, 3]);
    gates[3].resolve();
    await runs[3];
    expect(slots.active).toBe(0);
  });
});
