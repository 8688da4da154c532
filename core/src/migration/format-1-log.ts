import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { crc32 } from "node:zlib";

/**
 * One change in the write-ahead log of a format-1 data dir (`data/.wal/*.log`): a record's new text or
 * bytes, its removal, or the removal of every key under a prefix (`clear`; "" is everything).
 */
export type LoggedChange = { kind: "put"; key: string; text: string } | { kind: "remove"; key: string } | { kind: "clear"; key: string };

const MAGIC = 0x4c505731;
const HEADER = 12;
const MAX_FRAME = 1 << 30;

/**
 * The changes of one segment, frame by frame, up to the first frame that is torn or fails its CRC-32 (as
 * the format-1 engine replayed them: a frame cut short by a crash was never acknowledged). A frame is a
 * header (magic "LPW1", payload length, CRC-32 of the payload) and a payload: an op count, then per op its
 * kind (0 text, 1 bytes, 2 remove, 3 clear), key length and key, and for 0 and 1 the value's length and bytes.
 */
function* framesOf(segment: Buffer): Generator<LoggedChange[]> {
  for (let at = 0; at + HEADER <= segment.byteLength; ) {
    if (segment.readUInt32LE(at) !== MAGIC) return;
    const size = segment.readUInt32LE(at + 4);
    if (size < 4 || size > MAX_FRAME || at + HEADER + size > segment.byteLength) return;
    const payload = segment.subarray(at + HEADER, at + HEADER + size);
    if (crc32(payload) !== segment.readUInt32LE(at + 8)) return;
    const changes = opsOf(payload);
    if (!changes) return;
    yield changes;
    at += HEADER + size;
  }
}

function opsOf(payload: Buffer): LoggedChange[] | null {
  const changes: LoggedChange[] = [];
  let at = 4;
  for (let n = payload.readUInt32LE(0); n > 0; n--) {
    if (at + 5 > payload.byteLength) return null;
    const kind = payload.readUInt8(at);
    const keyLength = payload.readUInt32LE(at + 1);
    at += 5;
    if (kind > 3 || at + keyLength > payload.byteLength) return null;
    const key = payload.toString("utf8", at, at + keyLength);
    at += keyLength;
    if (kind === 2 || kind === 3) {
      changes.push({ kind: kind === 2 ? "remove" : "clear", key });
      continue;
    }
    if (at + 4 > payload.byteLength) return null;
    const length = payload.readUInt32LE(at);
    at += 4;
    if (at + length > payload.byteLength) return null;
    changes.push({ kind: "put", key, text: payload.toString("utf8", at, at + length) });
    at += length;
  }
  return at === payload.byteLength ? changes : null;
}

/**
 * Every change a format-1 records folder's log still holds, in the order written: segments by name (a
 * zero-padded sequence), frames in order. A clean stop leaves none; a kill leaves what was acknowledged
 * but perhaps not yet in the record files, which the migration lays over them.
 */
export function* loggedChanges(dataFolder: string): Generator<LoggedChange> {
  const dir = join(dataFolder, ".wal");
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => /^\d{16}\.log$/.test(name)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  for (const name of names) for (const frame of framesOf(readFileSync(join(dir, name)))) yield* frame;
}
