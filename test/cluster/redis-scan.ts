import { spawnSync } from "node:child_process";

/** What {@link scanRedis} found. */
export interface RedisScan {
  /** Keys (or `key field` for hashes) whose value looks like JSON. */
  records: number;
  /** Those whose JSON does not parse: torn records. */
  corrupt: string[];
}

// Runs inside Redis (one EVAL, atomic): every string and hash value that starts like JSON must decode.
// Media bytes and plain counters do not start with `{` or `[` and are left alone.
const SCRIPT = `
local records, corrupt = 0, {}
local function check(name, value)
  local first = string.sub(value, 1, 1)
  if first == '{' or first == '[' then
    records = records + 1
    if not pcall(cjson.decode, value) then table.insert(corrupt, name) end
  end
end
for _, key in ipairs(redis.call('KEYS', '*')) do
  local kind = redis.call('TYPE', key)['ok']
  if kind == 'string' then
    check(key, redis.call('GET', key))
  elseif kind == 'hash' then
    local flat = redis.call('HGETALL', key)
    for i = 1, #flat, 2 do check(key .. ' ' .. flat[i], flat[i + 1]) end
  end
end
table.insert(corrupt, 1, tostring(records))
return corrupt
`;

/**
 * Reads every record in the redis-server on `port` with `redis-cli` (shipped with Debian's redis-server) and
 * reports the ones that do not parse. A test-sized database only: it walks every key.
 */
export function scanRedis(port: number): RedisScan {
  const run = spawnSync("redis-cli", ["-p", String(port), "--raw", "EVAL", SCRIPT, "0"], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0 || /^ERR/m.test(run.stdout)) throw new Error(`redis-cli EVAL failed: ${run.stderr}${run.stdout}`);
  const [records, ...corrupt] = run.stdout.trimEnd().split("\n");
  return { records: Number(records), corrupt };
}
