import type { Redis } from "ioredis";
import { redisCall } from "./redis-client.js";
import { checkKey } from "./keys.js";
import { KEY_SET_LUA, type RedisLayout } from "./redis-keys.js";

// Idempotency records on Redis, in one script run per step and no lock. Each record is a JSON object with
// `expires_at` (an ISO timestamp of the core's clock, so comparable as text) and `owner` (the claimant).
//
// claim (ARGV[5] = "claim"): writes the marker ARGV[6] unless a live record is there (expires_at > ARGV[7]);
// answers nil when it claimed, else the live record's text. SET ... GET reads and writes in one command; a
// live record it replaced is put back (rare: a replay or a retry while running).
// finish (ARGV[5] = "finish"): replaces the record by ARGV[6] (or removes it when ARGV[6] is "") only while
// it is still the marker of owner ARGV[8], so a claimant whose marker expired cannot overwrite its
// successor; answers 1 when it wrote.
//
// sweep (ARGV[5] = "sweep"): removes the record when it has expired at ARGV[7] (one that is not JSON, or has
// no `expires_at`, is left to `lp doctor`); answers 1 when it removed it.
//
// Records join the key sets like every record (so a reset or an export finds them), but not the change
// feed: nothing derives state from them, so no process needs to follow them. The key-set helpers are
// redis-keys.ts's, the same text as the write script's.
const SCRIPT = `
local records, leaves, branches, k = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
${KEY_SET_LUA}local function remove_when(test)
  local ok, record = pcall(cjson.decode, redis.call('GET', records .. k) or 'null')
  if not (ok and type(record) == 'table' and test(record)) then return 0 end
  redis.call('DEL', records .. k)
  unlink(k)
  return 1
end
if ARGV[5] == 'sweep' then
  return remove_when(function (record) return type(record.expires_at) == 'string' and record.expires_at <= ARGV[7] end)
end
if ARGV[6] == '' then
  return remove_when(function (record) return record.owner == ARGV[8] end)
end
local old = redis.call('SET', records .. k, ARGV[6], 'GET')
if not old then
  if ARGV[5] == 'claim' then link(k) return nil end
  -- finish with no record left (removed by a reset meanwhile): nothing to replay, so nothing is kept.
  redis.call('DEL', records .. k)
  return 0
end
local record = cjson.decode(old)
if ARGV[5] == 'claim' then
  if record.expires_at and record.expires_at > ARGV[7] then
    redis.call('SET', records .. k, old)
    return old
  end
  return nil
end
if record.owner ~= ARGV[8] then
  redis.call('SET', records .. k, old)
  return 0
end
return 1`;

type WithClaim = Redis & { lpIdem(...args: string[]): Promise<string | number | null> };

/** The two steps of an idempotency key on a shared store. */
export interface RecordClaims {
  /** Stores `marker` at `key` unless a record that has not expired at `now` is there: then its text. */
  claim(key: string, marker: string, now: string): Promise<string | null>;
  /** Replaces `owner`'s marker at `key` by `record` (null: removes it); false when the marker is no longer its. */
  finish(key: string, owner: string, record: string | null): Promise<boolean>;
  /** Removes the record at `key` if it has expired at `now`; true when it did. */
  sweep(key: string, now: string): Promise<boolean>;
}

/** {@link RecordClaims} on the data store's Redis layout (keys already checked). */
export function redisRecordClaims(client: Redis, layout: RedisLayout): RecordClaims {
  const scripted = client as WithClaim;
  if (typeof scripted.lpIdem !== "function") client.defineCommand("lpIdem", { numberOfKeys: 0, lua: SCRIPT });
  const base = [layout.records, layout.leaves, layout.branches];
  return {
    async claim(key, marker, now) {
      checkKey(key);
      const answer = await redisCall(() => scripted.lpIdem(...base, key, "claim", marker, now, ""));
      return typeof answer === "string" ? answer : null;
    },
    async finish(key, owner, record) {
      checkKey(key);
      return (await redisCall(() => scripted.lpIdem(...base, key, "finish", record ?? "", "", owner))) === 1;
    },
    async sweep(key, now) {
      checkKey(key);
      return (await redisCall(() => scripted.lpIdem(...base, key, "sweep", "", now, ""))) === 1;
    },
  };
}
