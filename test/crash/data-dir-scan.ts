import { join } from "node:path";
import { openSqlite, prepareArrays } from "../../core/src/storage/sqlite.js";

/** What a read of a data directory's records found. */
export interface ScanResult {
  /** Records read. */
  files: number;
  /** Records whose text is not JSON (torn or half-written), by key. */
  corrupt: string[];
  /** Generation jobs stored `processing`. */
  processing: string[];
  /** Deployments stored `deploying`. */
  deploying: string[];
  /** `activedeploy` claims (one deployment in flight per page) whose deployment is missing or settled. */
  danglingClaims: string[];
  /** Accounts whose stored quota totals (`product_totals`) differ from their products counted one by one. */
  totalsOff: string[];
}

/** Every record of the data dir's database, read through a read-only connection of its own (safe beside a running server). */
export function storedRecords(dataDir: string): Array<[string, string]> {
  const db = openSqlite(join(dataDir, "lp.db"), { readOnly: true });
  try {
    return prepareArrays<[], [string, string]>(db, "SELECT key, value FROM records").all();
  } finally {
    db.close();
  }
}

/** The quota totals the database keeps per products collection (`sqlite-products.ts`). */
function storedTotals(dataDir: string): Array<[string, number, number]> {
  const db = openSqlite(join(dataDir, "lp.db"), { readOnly: true });
  try {
    return prepareArrays<[], [string, number, number]>(db, "SELECT parent, products, media_bytes FROM product_totals").all();
  } finally {
    db.close();
  }
}

/**
 * Reads every record of `{dataDir}/lp.db` and parses it: SQLite commits a change whole or not at all, so a
 * kill at any moment must leave only whole records. Also reports background work stored as still running
 * and deployment claims that point nowhere; right after a restart (recovery runs before the server listens)
 * both must be empty. And the quota totals the database keeps must be its products, counted.
 */
export function scanDataDir(dataDir: string): ScanResult {
  const result: ScanResult = { files: 0, corrupt: [], processing: [], deploying: [], danglingClaims: [], totalsOff: [] };
  const counted = new Map<string, [number, number]>();
  const claims: { path: string; key: string[]; deploymentId: unknown }[] = [];
  const deployments = new Map<string, string>();
  for (const [name, text] of storedRecords(dataDir)) {
    result.files++;
    const key = name.split(":");
    let record: any;
    try {
      record = JSON.parse(text);
    } catch {
      result.corrupt.push(name);
      continue;
    }
    // acct:{account}:jobs:{id}, acct:{account}:deployments:{page}:{id}, acct:{account}:activedeploy:{page}
    if (key[0] !== "acct") continue;
    if (key[2] === "jobs" && record?.status === "processing") result.processing.push(key.join(":"));
    if (key[2] === "deployments" && key.length === 5) {
      deployments.set(`${key[1]}:${key[3]}:${key[4]}`, record?.status);
      if (record?.status === "deploying") result.deploying.push(key.join(":"));
    }
    if (key[2] === "activedeploy") claims.push({ path: key.join(":"), key, deploymentId: record?.deployment_id });
    if (key[2] === "products" && key.length === 4) {
      const parent = key.slice(0, 3).join(":");
      const [products, bytes] = counted.get(parent) ?? [0, 0];
      const live = !record?.deleted_at;
      const imageBytes = live ? (record?.images ?? []).reduce((sum: number, image: { bytes?: number }) => sum + (image.bytes ?? 0), 0) : 0;
      counted.set(parent, [products + (live ? 1 : 0), bytes + imageBytes]);
    }
  }
  for (const [parent, products, bytes] of storedTotals(dataDir)) {
    const [want, wantBytes] = counted.get(parent) ?? [0, 0];
    if (products !== want || bytes !== wantBytes) result.totalsOff.push(`${parent}: stored ${products} products / ${bytes} bytes, counted ${want} / ${wantBytes}`);
    counted.delete(parent);
  }
  for (const [parent, [products]] of counted) if (products > 0) result.totalsOff.push(`${parent}: no stored totals, counted ${products} products`);
  for (const claim of claims) {
    if (deployments.get(`${claim.key[1]}:${claim.key[3]}:${String(claim.deploymentId)}`) !== "deploying") result.danglingClaims.push(claim.path);
  }
  return result;
}
