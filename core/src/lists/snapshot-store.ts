import type { SnapshotBytes, SnapshotSource } from "./index-snapshot.js";

/**
 * Where a shared store (Redis) keeps the persisted list indexes: the text of one snapshot per storage prefix,
 * each valid at a position of the store's change feed. Snapshots are derived data: losing one costs a
 * rebuild, never a record. Each is checked before it is used.
 */
export interface IndexSnapshotStore {
  read(prefix: string): Promise<Buffer | null>;
  /** The snapshot of `prefix` to be read in ranges (the newest blocks first), or null when there is none. */
  open?(prefix: string): Promise<SnapshotSource | null>;
  /** Replaces the snapshot of `prefix` with `bytes` (what `encodeSnapshotParts` made: the pieces in order). */
  write(prefix: string, bytes: SnapshotBytes): Promise<void>;
  remove(prefix: string): Promise<void>;
  removeAll(): Promise<void>;
}
