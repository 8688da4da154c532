import { describe, expect, it } from "vitest";
import { createRunLanes } from "./run-lanes.js";
import { createWorkTracker } from "./work-tracker.js";

/** Lanes whose runs wait until released, recording starts and the most runs in progress per lane. */
function heldLanes(width: (key: string) => number) {
  const work = createWorkTracker();
  const started: string[] = [];
  const release = new Map<string, () => void>();
  const running = new Map<string, number>();
  const most = new Map<string, number>();
  const lanes = createRunLanes<{ key: string; name: string }>({
    width,
    track: (promise) => work.track(promise),
    runOne: ({ key, name }) => {
      started.push(name);
      running.set(key, (running.get(key) ?? 0) + 1);
      most.set(key, Math.max(most.get(key) ?? 0, running.get(key)!));
      return new Promise<void>((resolve) =>
        release.set(name, () => {
          running.set(key, running.get(key)! - 1);
          resolve();
        }),
      );
    },
  });
  const finish = async (name: string) => {
    release.get(name)!();
    // The worker takes its next entry once the finished run's promise has settled.
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { lanes, work, started, most, finish };
}

describe("run lanes", () => {
  it("starts at most the lane's width at once, the rest in the order they were added", async () => {
    const { lanes, started, most, finish } = heldLanes(() => 2);
    for (const name of ["a", "b", "c", "d", "e"]) lanes.add("ep1", { key: "ep1", name });
    expect(started).toEqual(["a", "b"]);
    await finish("b");
    expect(started).toEqual(["a", "b", "c"]);
    await finish("a");
    await finish("c");
    expect(started).toEqual(["a", "b", "c", "d", "e"]);
    expect(most.get("ep1")).toBe(2);
  });

  it("keeps lanes apart: a full lane holds back none of another", () => {
    const { lanes, started } = heldLanes((key) => (key === "slow" ? 1 : 3));
    lanes.add("slow", { key: "slow", name: "s1" });
    lanes.add("slow", { key: "slow", name: "s2" });
    lanes.add("fast", { key: "fast", name: "f1" });
    lanes.add("fast", { key: "fast", name: "f2" });
    expect(started).toEqual(["s1", "f1", "f2"]);
  });

  it("is busy for the work tracker until its last entry has run", async () => {
    const { lanes, work, finish } = heldLanes(() => 1);
    lanes.add("ep1", { key: "ep1", name: "a" });
    lanes.add("ep1", { key: "ep1", name: "b" });
    let idle = false;
    const waiting = work.onIdle().then(() => (idle = true));
    await finish("a");
    expect(idle).toBe(false);
    await finish("b");
    await waiting;
    expect(idle).toBe(true);
    expect(work.active).toBe(0);
  });

  it("lets more runs in at once after the width grows", async () => {
    const { lanes, started, finish } = heldLanes(() => 1);
    lanes.add("ep1", { key: "ep1", name: "a" });
    lanes.setWidth("ep1", 2);
    lanes.add("ep1", { key: "ep1", name: "b" });
    expect(started).toEqual(["a", "b"]);
    await finish("a");
    await finish("b");
  });

  it("runs a long lane whole, in order, across the compaction of its entries", async () => {
    const work = createWorkTracker();
    const order: number[] = [];
    const lanes = createRunLanes<number>({ width: () => 1, track: (p) => work.track(p), runOne: async (n) => void order.push(n) });
    for (let n = 0; n < 5000; n++) lanes.add("ep1", n);
    await work.onIdle();
    expect(order).toEqual(Array.from({ length: 5000 }, (_, n) => n));
  });
});
