/**
 * Child process of the write-ahead log's kill test: 16 writers, each writing its own key over and over
 * (every fourth write a group of its key and a shared one), through an fs driver whose log is never
 * checkpointed, printing `ack <writer> <n>` once each write is acknowledged, until it is killed.
 * Usage: node --import tsx fs-wal-writer.fixture.ts <base-dir>
 */
import { fsDurableDriver } from "./fs-durable-driver.js";
import { toStorage } from "./create-storage.js";

/** The text written by `writer` at its `n`th write: padded, so a torn one cannot parse. */
export function walValue(writer: number, n: number) {
  return { writer, n, pad: "x".repeat(200 + ((writer * 31 + n) % 900)) };
}

if (process.argv[1]?.endsWith("fs-wal-writer.fixture.ts")) {
  const driver = fsDurableDriver({ base: process.argv[2], logLimits: { checkpointMs: 3_600_000, segmentBytes: 1 << 30, maxBytes: 1 << 30 } });
  const storage = toStorage(driver);
  const batch = (driver as unknown as { writeBatch(ops: { key: string; value: unknown }[]): Promise<void> }).writeBatch;
  await Promise.all(
    Array.from({ length: 16 }, async (_, writer) => {
      for (let n = 0; ; n++) {
        const key = `w:k${writer}`;
        if (n % 4 === 3) await batch([{ key, value: walValue(writer, n) }, { key: "w:shared", value: walValue(writer, n) }]);
        else await storage.setItem(key, walValue(writer, n));
        process.stdout.write(`ack ${writer} ${n}\n`);
      }
    }),
  );
}
