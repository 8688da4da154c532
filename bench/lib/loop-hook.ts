/**
 * Loaded into a benchmark's server child with `node --import <bundle of this file>` (bench/lib/child.ts):
 * watches the child's own event loop with `monitorEventLoopDelay` and answers the bench over the IPC
 * channel. A first window is open from the child's start (start-up and first use); `{ loop: "start" }`
 * opens a fresh one, `{ loop: "stop" }` closes the current one and answers with its figures; `{ loop: "gc" }`
 * runs a full collection (the child has `--expose-gc`) and answers with the RSS. Without an IPC channel (a
 * child started some other way) it does nothing.
 */
import { createLoopHistogram, loopStats, type LoopMessage } from "./loop-delay.js";

if (process.send) {
  const send = process.send.bind(process);
  const histogram = createLoopHistogram();
  histogram.enable();
  process.on("message", (message: LoopMessage) => {
    if (message?.loop === "start") {
      // A reset before enabling again: otherwise the pause since the last window counts as one delay.
      histogram.disable();
      histogram.reset();
      histogram.enable();
      send({ loop: "started" } satisfies LoopMessage);
    } else if (message?.loop === "stop") {
      histogram.disable();
      send({ loop: "stats", stats: loopStats(histogram) } satisfies LoopMessage);
    } else if (message?.loop === "gc") {
      (globalThis as { gc?: () => void }).gc?.();
      send({ loop: "collected", rssMb: process.memoryUsage().rss / 1024 / 1024 } satisfies LoopMessage);
    }
  });
  // The channel alone must not keep a child alive that would otherwise end (a seeding script).
  process.channel?.unref();
}
