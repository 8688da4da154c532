/** Lets the event loop run other work (requests, `/healthz`) between two slices of a long job. */
export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Time the event loop is held at most, give or take one block, by encoding or decoding before it yields. */
const BUDGET_MS = 8;

/** A yield to the event loop when the work since the last one has taken {@link BUDGET_MS} or more. */
export function pacer(): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < BUDGET_MS) return;
    await yieldToLoop();
    since = performance.now();
  };
}
