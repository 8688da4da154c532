import type { SnapshotBytes, SnapshotSource } from "./index-snapshot.js";

/**
 * Where a store keeps the persisted list indexes: the text of one snapshot per storage prefix. Snapshots
 * are derived data: losing one costs a rebuild, never a record. Each is checked before it is used.
 */
export interface IndexSnapshotStore {
  /**
   * On a store without a change feed (fs): a token that changes whenever a record directly under `prefix`
   * is written or removed (the folder's modification time), and whether that last change is old enough
   * that a write made now could not leave the token as it is (timestamps are coarse).
   */
  stamp?(prefix: string): Promise<Stamp>;
  /**
   * With `stamp`: for a snapshot (at `token`) whose token no longer holds, the names of the records changed
   * since the stamp that gave `basis` (fs: from the key journal when it covers the snapshot, otherwise from
   * the files' ctimes, with the names of every record now under `prefix`); null when that cannot be told
   * (the folder was swapped: a rebuild is needed).
   */
  scan?(prefix: string, basis: string, token?: string): Promise<RecordScan | null>;
  /**
   * With `scan`: the names of the records under `prefix` the store's key journal holds (fs), before the
   * snapshot is read, so that reading them again can start meanwhile; null when it has none to give.
   */
  journaled?(prefix: string): string[] | null;
  /** With `stamp`: makes the token settled now (the folder's time is set into the past), once nothing writes. */
  seal?(prefix: string): Promise<void>;
  read(prefix: string): Promise<Buffer | null>;
  /** The snapshot of `prefix` to be read in ranges (Redis: the newest blocks first), or null when there is none. */
  open?(prefix: string): Promise<SnapshotSource | null>;
  /** Replaces the snapshot of `prefix` with `bytes` (what `encodeSnapshotParts` made: the pieces in order). */
  write(prefix: string, bytes: SnapshotBytes): Promise<void>;
  remove(prefix: string): Promise<void>;
  removeAll(): Promise<void>;
}

/** A store's token for a collection (see {@link IndexSnapshotStore.stamp}). */
export interface Stamp {
  token: string;
  settled: boolean;
  /** What {@link IndexSnapshotStore.scan} needs to tell what changed after this stamp was taken. */
  basis?: string;
}

/** The record names changed under a collection since a stamp, and (from a check of the files) those there now. */
export interface RecordScan {
  /** Every record name there now; absent when `changed` came from the key journal, which names removals too. */
  present?: ReadonlySet<string>;
  changed: string[];
  /** Where `changed` came from: the key journal, or the files' ctimes. */
  from: "journal" | "files";
}
