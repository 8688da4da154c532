import { crc32 } from "node:zlib";

/**
 * One change the fs driver's write-ahead log records: a record's new text (`text`, or raw `bytes`), its
 * removal, or the removal of every key under a prefix (`clear`, whose `key` is the prefix, "" for all).
 */
export type WalOp =
  | { kind: "text"; key: string; value: string }
  | { kind: "bytes"; key: string; value: Uint8Array }
  | { kind: "remove"; key: string }
  | { kind: "clear"; key: string };

const MAGIC = 0x4c505731; // "LPW1"
const HEADER = 12; // magic, payload length, CRC-32 of the payload
const KINDS = ["text", "bytes", "remove", "clear"] as const;
/** A frame longer than this is taken for garbage (a torn header), never allocated. */
const MAX_FRAME = 1 << 30;

/**
 * Encodes ops as one frame: a header (magic, length, CRC-32 of the payload), then per op its kind, its
 * key and, for new contents, the bytes. A frame is the unit replay applies whole or not at all.
 */
export function encodeFrame(ops: readonly WalOp[]): Buffer {
  const keys = ops.map((op) => Buffer.from(op.key, "utf8"));
  const values = ops.map((op) => (op.kind === "text" ? Buffer.from(op.value, "utf8") : op.kind === "bytes" ? op.value : null));
  let size = 4;
  for (let i = 0; i < ops.length; i++) size += 5 + keys[i].byteLength + (values[i] ? 4 + values[i]!.byteLength : 0);
  const frame = Buffer.allocUnsafe(HEADER + size);
  let at = HEADER;
  at = frame.writeUInt32LE(ops.length, at);
  for (let i = 0; i < ops.length; i++) {
    at = frame.writeUInt8(KINDS.indexOf(ops[i].kind), at);
    at = frame.writeUInt32LE(keys[i].byteLength, at);
    at += keys[i].copy(frame, at);
    const value = values[i];
    if (value) {
      at = frame.writeUInt32LE(value.byteLength, at);
      frame.set(value, at);
      at += value.byteLength;
    }
  }
  frame.writeUInt32LE(MAGIC, 0);
  frame.writeUInt32LE(size, 4);
  frame.writeUInt32LE(crc32(frame.subarray(HEADER)), 8);
  return frame;
}

/**
 * The frames of a log segment, in order, up to the first one that is incomplete or fails its checksum:
 * a write cut short by a crash (a torn tail) is never applied, nor anything after it.
 */
export function* decodeFrames(segment: Buffer): Generator<WalOp[]> {
  for (let at = 0; at + HEADER <= segment.byteLength; ) {
    if (segment.readUInt32LE(at) !== MAGIC) return;
    const size = segment.readUInt32LE(at + 4);
    if (size < 4 || size > MAX_FRAME || at + HEADER + size > segment.byteLength) return;
    const payload = segment.subarray(at + HEADER, at + HEADER + size);
    if (crc32(payload) !== segment.readUInt32LE(at + 8)) return;
    const ops = decodePayload(payload);
    if (!ops) return;
    yield ops;
    at += HEADER + size;
  }
}

/** The ops of a payload whose checksum matched, or null when its structure is still inconsistent. */
function decodePayload(payload: Buffer): WalOp[] | null {
  const count = payload.readUInt32LE(0);
  const ops: WalOp[] = [];
  let at = 4;
  for (let i = 0; i < count; i++) {
    if (at + 5 > payload.byteLength) return null;
    const kind = KINDS[payload.readUInt8(at)];
    const keyLength = payload.readUInt32LE(at + 1);
    at += 5;
    if (!kind || at + keyLength > payload.byteLength) return null;
    const key = payload.toString("utf8", at, at + keyLength);
    at += keyLength;
    if (kind === "remove" || kind === "clear") {
      ops.push({ kind, key });
      continue;
    }
    if (at + 4 > payload.byteLength) return null;
    const length = payload.readUInt32LE(at);
    at += 4;
    if (at + length > payload.byteLength) return null;
    const value = payload.subarray(at, at + length);
    at += length;
    ops.push(kind === "text" ? { kind, key, value: value.toString("utf8") } : { kind, key, value: Buffer.from(value) });
  }
  return at === payload.byteLength ? ops : null;
}

/** What an op touches: a record key, or (a `clear`) every key under a prefix; what the key journal keeps of each write. */
export type OpKey = Pick<WalOp, "kind" | "key">;
