import type { Redis } from "ioredis";
import { StorageUnavailableError } from "../errors.js";
import type { BatchFence, BatchOp } from "./create-storage.js";
import { redisCall } from "./redis-client.js";
import { parentsOf, toStoredText, type RedisLayout } from "./redis-keys.js";

// The writes of a batch (record, parents' child sets, feed entry: as the store's MULTI/EXEC writes them),
// made only if the lock key still holds the holder's fencing token. One script, so nothing can take the lock
// between the check and the writes. Per op, ARGV holds: kind ("s" set, "d" delete), key, record key, text,
// the number of parents, then the parents' child-set keys.
const FENCED_BATCH = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local i = 4
for _ = 1, tonumber(ARGV[3]) do
  local kind, key, rec, text, parents = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], tonumber(ARGV[i + 4])
  i = i + 5
  if kind == 's' then redis.call('SET', rec, text) else redis.call('DEL', rec) end
  for p = 0, parents - 1 do
    if kind == 's' then redis.call('SADD', ARGV[i + p], key) else redis.call('SREM', ARGV[i + p], key) end
  end
  i = i + parents
  if KEYS[2] ~= '' then
    if kind == 's' then redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', 'k', key, 'v', text)
    else redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', 'k', key, 'd', '1') end
  end
end
return 1`;

/**
 * Applies `ops` (keys already checked) only while the lock named by `fence` still holds its token: a holder
 * whose lease ended, and whose key another holder may have taken, gets `service_unavailable` and writes
 * nothing.
 */
export async function fencedBatch(client: Redis, layout: RedisLayout, ops: readonly BatchOp[], keys: readonly string[], fence: BatchFence): Promise<void> {
  const args: (string | number)[] = [fence.token, layout.feedMaxLength, ops.length];
  ops.forEach((op, n) => {
    const key = keys[n]!;
    const parents = parentsOf(key).map(layout.children);
    args.push("remove" in op ? "d" : "s", key, layout.record(key), "remove" in op ? "" : toStoredText(op.value), parents.length, ...parents);
  });
  const applied = await redisCall(() => client.eval(FENCED_BATCH, 2, fence.key, layout.feed ?? "", ...args));
  if (Number(applied) !== 1) {
    throw new StorageUnavailableError("The lock this change was made under was lost before it could be written; retry the request.");
  }
}
