import { closeSync, fdatasync, openSync, unlinkSync, writeSync } from "node:fs";
import { mkdir, rename, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { promisify } from "node:util";
import { FILE_MODE, DIR_MODE } from "./fs-io.js";

const fdatasyncAsync = promisify(fdatasync);

/**
 * One write of a group: a record's text to store at `path`, or (`text` null) the removal of `path`. Ops of
 * one `chain` are applied in order; different chains side by side (absent: chain 0).
 */
export interface GroupOp {
  key: string;
  path: string;
  text: string | null;
  chain?: number;
}

/** Chains whose renames and removals are in flight at once (the thread pool runs four at a time). */
const PARALLEL_CHAINS = 8;

/** What the group write needs of its driver: a fresh temporary name, whether to flush, and its read cache. */
export interface GroupWriteContext {
  tmpName: () => string;
  flush: boolean;
  cache: { set(key: string, text: string): void; delete(key: string): void } | null;
}

/**
 * Writes several records as one group commit: every new text goes to its own temporary file, all of them
 * are flushed in one round (the flushes run together, so the device is waited on once for the group, not
 * once per record), and only then are they renamed over their records, and removals made, in the order
 * given within each chain; chains run side by side (a group commit's callers are independent of each
 * other), unless two of them touch the same record, when the whole group goes in order. A kill at any
 * point leaves a prefix of each chain applied, as writing each chain one by one would: before the renames
 * nothing is visible (temporary files are dropped at the next start), and each rename is atomic. Resolves
 * once every op is applied, each new text durable; on any failure it rejects once every chain has stopped,
 * the temporary files not yet renamed are removed, and the ops after the failing one in its chain are not
 * applied.
 */
export async function writeGroup(ops: readonly GroupOp[], ctx: GroupWriteContext): Promise<void> {
  const temps = new Map<GroupOp, string>();
  const fds: number[] = [];
  try {
    for (const op of ops) {
      if (op.text === null) continue;
      const tmp = ctx.tmpName();
      const fd = openSync(tmp, "w", FILE_MODE);
      temps.set(op, tmp);
      fds.push(fd);
      writeSync(fd, op.text, null, "utf8");
    }
    if (ctx.flush) await Promise.all(fds.map((fd) => fdatasyncAsync(fd)));
  } catch (error) {
    dropTemps(temps.values());
    throw error;
  } finally {
    for (const fd of fds) closeSync(fd);
  }
  try {
    const chains = toChains(ops);
    let next = 0;
    const results = await Promise.allSettled(
      Array.from({ length: Math.min(PARALLEL_CHAINS, chains.length) }, async () => {
        while (next < chains.length) await applyChain(chains[next++], temps, ctx);
      }),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
  } finally {
    dropTemps(temps.values());
  }
}

/** The ops split by chain, in order of first appearance; one chain of all if two chains share a path. */
function toChains(ops: readonly GroupOp[]): GroupOp[][] {
  const byChain = new Map<number, GroupOp[]>();
  const owner = new Map<string, number>();
  for (const op of ops) {
    const chain = op.chain ?? 0;
    const first = owner.get(op.path);
    if (first !== undefined && first !== chain) return [[...ops]];
    owner.set(op.path, chain);
    let list = byChain.get(chain);
    if (!list) byChain.set(chain, (list = []));
    list.push(op);
  }
  return [...byChain.values()];
}

/** Renames a chain's new texts over their records and makes its removals, in order; stops at a failure. */
async function applyChain(chain: readonly GroupOp[], temps: Map<GroupOp, string>, ctx: GroupWriteContext): Promise<void> {
  for (const op of chain) {
    // From now on a read may see either text: none is cached until the op is applied.
    ctx.cache?.delete(op.key);
    if (op.text === null) {
      await removeIfPresent(op.path);
      continue;
    }
    await renameInto(temps.get(op)!, op.path);
    temps.delete(op);
    ctx.cache?.set(op.key, op.text);
  }
}

// Renames and removals go through the thread pool: on a busy disk they wait for the file system's journal,
// and the event loop keeps serving meanwhile. They still run one after the other, in order.
/** Renames `tmp` over `target`, creating the target's folders when they are missing. */
export async function renameInto(tmp: string, target: string): Promise<void> {
  try {
    await rename(tmp, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    await mkdir(dirname(target), { recursive: true, mode: DIR_MODE });
    await rename(tmp, target);
  }
}

async function removeIfPresent(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
  }
}

function dropTemps(paths: Iterable<string>): void {
  for (const path of paths) {
    try {
      unlinkSync(path);
    } catch {
      // Never created, or already renamed.
    }
  }
}
