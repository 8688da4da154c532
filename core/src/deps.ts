import { createHash, randomBytes, randomFillSync, randomUUID } from "node:crypto";

/** Source of the current time. Injected so tests can freeze and advance it. */
export interface Clock {
  now(): Date;
}

/** Source of identifiers and random material. Injected so tests can make them predictable. */
export interface IdSource {
  /** A UUID v4. */
  uuid(): string;
  /** `bytes` random bytes. */
  bytes(size: number): Buffer;
  /** A float in [0, 1), for jitter. */
  random(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => new Date() };

// Small requests (a request id on every request, tokens) are cut from a pool filled 4 KiB at a time: one
// call into the CSPRNG per few hundred ids instead of one each. No byte is handed out twice.
const pool = Buffer.alloc(4096);
let poolAt = pool.length;
function pooledBytes(size: number): Buffer {
  if (size > 256) return randomBytes(size);
  if (poolAt + size > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const out = Buffer.from(pool.subarray(poolAt, poolAt + size));
  poolAt += size;
  return out;
}

/** Ids from node:crypto. */
export const cryptoIds: IdSource = {
  uuid: () => randomUUID(),
  bytes: pooledBytes,
  random: () => randomBytes(4).readUInt32BE(0) / 0x1_0000_0000,
};

/** A clock that only moves when told to: for tests. */
export interface ManualClock extends Clock {
  set(date: Date | string): void;
  advance(ms: number): void;
}

/** Creates a {@link ManualClock} starting at `start`. */
export function createManualClock(start: Date | string = "2026-01-01T00:00:00.000Z"): ManualClock {
  let current = new Date(start).getTime();
  return {
    now: () => new Date(current),
    set: (date) => {
      current = new Date(date).getTime();
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

/**
 * A clock that reads `start` when it is made and then moves with the wall clock: a server that opens data
 * written at a known moment (a committed data dir) runs as if it were started just after it was written, so
 * windows measured from that moment (an Idempotency-Key's 24 h, a rotated secret's overlap) never depend on
 * the day the test runs.
 */
export function createOffsetClock(start: Date | string, wall: Clock = systemClock): Clock {
  const offset = new Date(start).getTime() - wall.now().getTime();
  return { now: () => new Date(wall.now().getTime() + offset) };
}

/** An opaque id with a prefix, e.g. `we_3f9c...`. */
export function toPrefixedId(ids: IdSource, prefix: string, bytes = 12): string {
  return `${prefix}_${ids.bytes(bytes).toString("hex")}`;
}

/** Hex SHA-256, used to store secrets and tokens without keeping them. */
export function sha256Hex(value: string | Buffer): string {
  return createHash("sha256").update(value).digest("hex");
}

// The last millisecond formatted and its text: a busy process stamps many records in the same millisecond
// (an event, its deliveries, their attempts), and the string is immutable, so it is formatted once.
let stampedMs = Number.NaN;
let stampedText = "";

/** ISO 8601 UTC with milliseconds. */
export function toTimestamp(date: Date): string {
  const ms = date.getTime();
  if (ms !== stampedMs) {
    stampedText = date.toISOString();
    stampedMs = ms;
  }
  return stampedText;
}
