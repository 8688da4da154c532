import type { Storage } from "unstorage";
import { CollectionIndex, type IndexEntry } from "./collection-index.js";

/**
 * Holds one {@link CollectionIndex} per storage prefix, built on first use by reading the prefix once and
 * kept current by the services that write to it. Single process: the index is the process's view.
 */
export class IndexRegistry {
  private readonly indexes = new Map<string, Promise<CollectionIndex<IndexEntry>>>();

  constructor(private readonly storage: Storage) {}

  /** The index of records under `prefix`, each turned into an entry by `toEntry` (null skips it). */
  get<R, E extends IndexEntry>(prefix: string, toEntry: (record: R) => E | null): Promise<CollectionIndex<E>> {
    let index = this.indexes.get(prefix);
    if (!index) {
      index = this.load(prefix, toEntry as (record: unknown) => IndexEntry | null);
      this.indexes.set(prefix, index);
      index.catch(() => this.indexes.delete(prefix));
    }
    return index as unknown as Promise<CollectionIndex<E>>;
  }

  /**
   * Registers an empty index for a prefix known to hold nothing yet (a collection that was just made),
   * so its first use does not scan storage: the memory driver lists every key for any prefix.
   */
  seedEmpty(prefix: string): void {
    if (!this.indexes.has(prefix)) this.indexes.set(prefix, Promise.resolve(new CollectionIndex<IndexEntry>()));
  }

  /** Forgets the index of one prefix (its records were removed). */
  drop(prefix: string): void {
    this.indexes.delete(prefix);
  }

  /** Forgets every index (after a reset or an import). */
  clear(): void {
    this.indexes.clear();
  }

  private async load(prefix: string, toEntry: (record: unknown) => IndexEntry | null) {
    const index = new CollectionIndex<IndexEntry>();
    const keys = await this.storage.getKeys(prefix);
    const depth = prefix.split(":").filter(Boolean).length + 1;
    const direct = keys.filter((k) => k.split(":").length === depth);
    for (let i = 0; i < direct.length; i += 256) {
      const batch = await Promise.all(direct.slice(i, i + 256).map((k) => this.storage.getItem(k)));
      for (const record of batch) {
        const entry = record ? toEntry(record) : null;
        if (entry) index.upsert(entry);
      }
    }
    // Build the created_at order once, now, rather than on the first request.
    index.query({ field: "created_at", descending: true, limit: 0 });
    return index;
  }
}
