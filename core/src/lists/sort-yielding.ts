import { yieldToLoop } from "./pacing.js";

/** Entries sorted between two yields, and entries merged between two yields. */
const RUN = 2048;
const MERGE_STEP = 16_384;

/**
 * Sorts `items` in slices that yield to the event loop: runs of {@link RUN} sorted in place, then merged
 * pairwise, so sorting 100,000 entries never holds the loop for more than a few milliseconds at a time.
 */
export async function sortYielding<T>(items: T[], compare: (a: T, b: T) => number): Promise<T[]> {
  let from = items.slice();
  for (let i = 0; i < from.length; i += RUN) {
    const run = from.slice(i, i + RUN).sort(compare);
    for (let j = 0; j < run.length; j++) from[i + j] = run[j]!;
    await yieldToLoop();
  }
  let to = new Array<T>(from.length);
  let moved = 0;
  for (let width = RUN; width < from.length; width *= 2) {
    for (let lo = 0; lo < from.length; lo += 2 * width) {
      const mid = Math.min(lo + width, from.length);
      const hi = Math.min(lo + 2 * width, from.length);
      let a = lo;
      let b = mid;
      for (let k = lo; k < hi; k++) {
        to[k] = a < mid && (b >= hi || compare(from[a]!, from[b]!) <= 0) ? from[a++]! : from[b++]!;
        if (++moved % MERGE_STEP === 0) await yieldToLoop();
      }
    }
    [from, to] = [to, from];
  }
  return from;
}

