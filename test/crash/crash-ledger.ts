/** Whether a delete reached the server: acknowledged, sent without an answer, or never sent. */
export type Deleted = "no" | "maybe" | "yes";

/** A product the client saw created (201), and what it knows of its later writes. */
export interface ProductEntry {
  id: string;
  price: number;
  /** The last title a 2xx confirmed (or a check read back after a restart). */
  title: string;
  /** Titles sent since then without an answer: the server may have stored any of them. */
  unconfirmedTitles: string[];
  /** Image URLs that must be there: acknowledged, or read back after a restart. */
  images: Set<string>;
  /** Image URLs ever sent (acknowledged or not), to stay under the 20-image limit. */
  imagesSent: number;
  deleted: Deleted;
  /** A request on it is in flight: one writer per product keeps "the last acknowledged title" meaningful. */
  busy: boolean;
}

/** A page the client learned of from a completed job. */
export interface PageEntry {
  id: string;
  deleted: Deleted;
  busy: boolean;
}

/** Tallies of what the load sent. */
export interface Tally {
  /** Requests answered 2xx. */
  acknowledged: number;
  /** Requests that got no answer (the server died under them). */
  interrupted: number;
  /** Expected refusals: 409 deployment_in_progress, 403 quota_exceeded, 404 on something maybe deleted. */
  refused: number;
}

/**
 * Everything the client saw acknowledged across every server life, which each restart must give back.
 * Only the load writes it; the checks read it and fold in what they read back.
 */
export interface Ledger {
  products: Map<string, ProductEntry>;
  /** Generation jobs answered 202. */
  jobs: Set<string>;
  /** Jobs whose page is not known yet. */
  jobsToPoll: Set<string>;
  pages: Map<string, PageEntry>;
  /** Deployments answered 202. */
  deployments: { id: string; pageId: string }[];
  /** Writes acknowledged, by kind (products.create, products.patch, ...). */
  acknowledgedWrites: Record<string, number>;
  tally: Tally;
  /** Answers no live server should give (5xx, an unexpected 4xx), with the request: the test fails on any. */
  unexpected: string[];
}

/** An empty ledger. */
export function createLedger(): Ledger {
  return {
    products: new Map(),
    jobs: new Set(),
    jobsToPoll: new Set(),
    pages: new Map(),
    deployments: [],
    acknowledgedWrites: {},
    tally: { acknowledged: 0, interrupted: 0, refused: 0 },
    unexpected: [],
  };
}

/** Counts one acknowledged write of `kind`. */
export function countWrite(ledger: Ledger, kind: string): void {
  ledger.acknowledgedWrites[kind] = (ledger.acknowledgedWrites[kind] ?? 0) + 1;
}

/** The total of acknowledged writes. */
export function totalWrites(ledger: Ledger): number {
  return Object.values(ledger.acknowledgedWrites).reduce((sum, n) => sum + n, 0);
}
