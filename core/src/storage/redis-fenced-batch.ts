import type { Redis } from "ioredis";
import { StorageUnavailableError } from "../errors.js";
import type { BatchFence } from "./create-storage.js";
import { redisCall } from "./redis-client.js";
import { WRITE_SCRIPT, type RedisLayout, type WriteOp } from "./redis-keys.js";

// The store's own write script, behind a check that the lock key still holds the holder's fencing token. One
// script run, so no other holder can take the lock between the check and the writes. The two leading
// arguments (lock key, token) are taken off ARGV, which leaves the write script its arguments as it expects.
const FENCED_WRITE_SCRIPT = `
local guard = table.remove(ARGV, 1)
local token = table.remove(ARGV, 1)
if redis.call('GET', guard) ~= token then return false end
${WRITE_SCRIPT}`;

type WithFencedCommand = Redis & { lpFencedWrite(...args: (string | Buffer | number)[]): Promise<number[] | null> };

/**
 * Applies `ops` (keys already checked) as {@link writeOps} does, only while the lock named by `fence` still
 * holds its token: a holder whose lease ended, and whose key another holder may have taken since, gets
 * `service_unavailable` and writes nothing.
 */
export async function fencedWriteOps(client: Redis, layout: RedisLayout, ops: readonly WriteOp[], fence: BatchFence): Promise<void> {
  const scripted = client as WithFencedCommand;
  if (typeof scripted.lpFencedWrite !== "function") client.defineCommand("lpFencedWrite", { numberOfKeys: 0, lua: FENCED_WRITE_SCRIPT });
  const args: (string | Buffer | number)[] = [fence.key, fence.token, layout.records, layout.leaves, layout.branches, layout.feed ?? "", layout.feedMaxLength];
  for (const op of ops) args.push(op.op, op.key, op.op === "remove" ? "" : op.value);
  const applied = await redisCall(() => scripted.lpFencedWrite(...args));
  if (applied === null) {
    throw new StorageUnavailableError("The lock this change was made under was lost before it could be written; retry the request.");
  }
}
