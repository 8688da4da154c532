// Moves the wall clock of a Node process forward by LP_SHIFT_DAYS days: every `new Date()` and `Date.now()`.
// Given through NODE_OPTIONS it reaches every Node process a run starts (vitest's workers, spawned servers), so
//   LP_SHIFT_DAYS=400 NODE_OPTIONS="--import ./scripts/shift-date.mjs" npx vitest run
// shows which tests would fail on a later day: a test that compares committed data or fixed timestamps with the
// wall clock. Timers and monotonic clocks are untouched. A check to run by hand, never part of lp.
const offset = Number(process.env.LP_SHIFT_DAYS ?? 0) * 86_400_000;
const Real = Date;
class Shifted extends Real {
  constructor(...args) {
    if (args.length === 0) super(Real.now() + offset);
    else super(...args);
  }
  static now() {
    return Real.now() + offset;
  }
}
globalThis.Date = Shifted;
