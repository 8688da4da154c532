import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** What a walk of a data directory's records found. */
export interface ScanResult {
  /** Record files read. */
  files: number;
  /** Files that are not JSON (torn or half-written records), relative to the data dir. */
  corrupt: string[];
  /** Generation jobs stored `processing`. */
  processing: string[];
  /** Deployments stored `deploying`. */
  deploying: string[];
  /** `activedeploy` claims (one deployment in flight per page) whose deployment is missing or settled. */
  danglingClaims: string[];
}

const isMissing = (error: unknown) => ["ENOENT", "ENOTDIR"].includes((error as NodeJS.ErrnoException).code ?? "");

function* walk(dir: string): Generator<string> {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  for (const entry of entries) {
    // `.tmp` holds writes in progress (or a dead process's leftovers), `.wal` the write-ahead log; neither holds records.
    if (entry.name === ".tmp" || entry.name === ".wal") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}

/**
 * Reads every record under `{dataDir}/data` (media bytes, under `media/`, are not JSON and are left
 * out) and parses it. The fs driver stores each record as JSON written to a temporary file, flushed and
 * renamed, so a kill at any moment must leave only whole records. Also reports background work stored
 * as still running and deployment claims that point nowhere; right after a restart (recovery runs before
 * the server listens) both must be empty. Safe while a server runs: a file renamed away mid-walk is skipped.
 */
export function scanDataDir(dataDir: string): ScanResult {
  const root = join(dataDir, "data");
  const result: ScanResult = { files: 0, corrupt: [], processing: [], deploying: [], danglingClaims: [] };
  const claims: { path: string; key: string[]; deploymentId: unknown }[] = [];
  const deployments = new Map<string, string>();
  for (const path of walk(root)) {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      if (isMissing(error)) continue;
      throw error;
    }
    result.files++;
    const key = relative(root, path).split(sep);
    let record: any;
    try {
      record = JSON.parse(text);
    } catch {
      result.corrupt.push(key.join(":"));
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
  }
  for (const claim of claims) {
    if (deployments.get(`${claim.key[1]}:${claim.key[3]}:${String(claim.deploymentId)}`) !== "deploying") result.danglingClaims.push(claim.path);
  }
  return result;
}
