import type { Exchange } from "./checks.js";
import type { CreatedRecord } from "./types.js";

type Kind = CreatedRecord["kind"];

/** A record the run made, with what the clean-up needs to find the rest (a job's page, an inline page's product). */
export interface Entry extends CreatedRecord {
  /** Jobs and pages: made from an inline product, which the clean-up deletes too. */
  inline?: boolean;
  /** Jobs: the page they made, once known; deployments: their page. */
  pageId?: string;
  /** Pages: the product they were made from, once known. */
  productId?: string;
}

const ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Every record the run made, by kind and id, in the order made: the run touches only these, deletes them
 * at the end, and names no other record in its report.
 */
export function createLedger() {
  const entries: Entry[] = [];
  const find = (kind: Kind, id: string) => entries.find((e) => e.kind === kind && e.id === id);

  return {
    entries,
    /** Remembers a record (once); an id that could not be a path segment is not one of ours to touch. */
    add(kind: Kind, id: unknown, label: string, extra: Partial<Pick<Entry, "inline" | "pageId" | "productId">> = {}): string | undefined {
      if (typeof id !== "string" || !ID.test(id)) return undefined;
      const existing = find(kind, id);
      if (existing) Object.assign(existing, extra);
      else entries.push({ kind, id, label, deleted: false, ...extra });
      return id;
    },
    /**
     * Remembers what a create answered with, whatever its status: a wrong status or shape is a finding,
     * but the record exists and must be cleaned up.
     */
    fromAnswer(ex: Exchange, kind: Kind, label: string, field = "id", extra: Partial<Pick<Entry, "inline" | "pageId">> = {}): string | undefined {
      if (ex.status < 200 || ex.status >= 300) return undefined;
      const data = (ex.body as { data?: Record<string, unknown> } | null | undefined)?.data;
      return typeof data === "object" && data !== null ? this.add(kind, data[field], label, extra) : undefined;
    },
    /** True when the record is one the run made. */
    has(kind: Kind, id: unknown): boolean {
      return typeof id === "string" && find(kind, id) !== undefined;
    },
    get(kind: Kind, id: string): Entry | undefined {
      return find(kind, id);
    },
    markDeleted(kind: Kind, id: string): void {
      const entry = find(kind, id);
      if (entry) entry.deleted = true;
    },
    /** The records as the report lists them. */
    toRecords(): CreatedRecord[] {
      return entries.map(({ kind, id, label, deleted }) => ({ kind, id, label, deleted }));
    },
  };
}

/** What {@link createLedger} returns. */
export type Ledger = ReturnType<typeof createLedger>;
