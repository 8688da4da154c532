/**
 * Child process of the key journal's kill test: opens the stores of a data dir as `lp serve` does and
 * changes the items of `index-items.fixture.ts` (retitles, soft and hard removals, new items) one write at
 * a time, printing `ack <n>` once each is acknowledged, until it is killed. Its writes cycle over
 * {@link TOUCHED} keys (the last fifth of them past the seeded `count`), however long it runs.
 * Usage: node --import tsx journal-writer.fixture.ts <data-dir> <count>
 */
import { createStores } from "../storage/create-storage.js";
import { item, keyOf } from "./index-items.fixture.js";

/** Distinct keys the writer touches. */
export const TOUCHED = 150;

if (process.argv[1]?.endsWith("journal-writer.fixture.ts")) {
  const stores = createStores("fs", process.argv[2]);
  const count = Number(process.argv[3]);
  for (let n = 0; ; n++) {
    // Spread over the collection and past its end, so each kind of change reaches old and new records.
    const k = 1 + ((n * 37) % TOUCHED);
    const i = k > (TOUCHED * 4) / 5 ? count + k : k * 3;
    if (n % 5 === 0) await stores.data.removeItem(keyOf(i));
    else if (n % 5 === 1) await stores.data.setItem(keyOf(i), { ...item(i), gone: true });
    else await stores.data.setItem(keyOf(i), item(i, `changed ${n}`));
    process.stdout.write(`ack ${n}\n`);
  }
}
