import type { Redis } from "ioredis";
import { parentOf } from "../storage/keys.js";
import { redactRedisUrl } from "../storage/redis-client.js";
import { redisLayout } from "../storage/redis-keys.js";
import { ioredis } from "../storage/redis-modules.js";
import type { DoctorProblem, DoctorSource, SourceRecord } from "./doctor.js";


async function scanKeys(client: Redis, pattern: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await client.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    out.push(...keys);
    cursor = next;
  } while (cursor !== "0");
  return out;
}

/** Glob characters of a prefix, escaped for MATCH. */
const globEscape = (text: string) => text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

/**
 * The sets each record should be in: its key in its parent's leaves, every ancestor in its own parent's
 * branches (the layout of redis-keys.ts), from the readable records.
 */
function expectedSets(keys: Set<string>): Map<string, Set<string>> {
  const sets = new Map<string, Set<string>>();
  const add = (set: string, member: string) => (sets.get(set) ?? sets.set(set, new Set()).get(set)!).add(member);
  for (const key of keys) {
    add(`l:${parentOf(key)}`, key);
    for (let node = parentOf(key); node !== ""; node = parentOf(node)) add(`b:${parentOf(node)}`, node);
  }
  return sets;
}

/**
 * A Redis prefix as `lp doctor` reads it: records under `<prefix>d:` (found by SCAN, not through the key
 * sets, so that a record missing from them is found too), the key sets lists walk (`<prefix>dl:` and
 * `<prefix>db:`: the stored list indexes), media under `<prefix>m:`. Unreadable records are renamed to
 * `<prefix>quarantine:<key>`. Run it with every `lp serve` of the prefix stopped when fixing.
 */
export function redisDoctorSource(url: string, prefix: string): DoctorSource & { close(): Promise<void> } {
  const client = new (ioredis().Redis)(url, { maxRetriesPerRequest: 1, connectTimeout: 2_000, lazyConnect: true });
  const layout = redisLayout(prefix, "d", true);
  const formatKey = `${prefix}meta:format`;
  let connected: Promise<void> | null = null;
  const ready = () => (connected ??= client.connect());
  const actualSets = async (): Promise<Map<string, Set<string>>> => {
    const sets = new Map<string, Set<string>>();
    for (const [kind, base] of [["l", layout.leaves], ["b", layout.branches]] as const) {
      for (const name of await scanKeys(client, `${globEscape(base)}*`)) sets.set(`${kind}:${name.slice(base.length)}`, new Set(await client.smembers(name)));
    }
    return sets;
  };
  const setKey = (id: string) => (id.startsWith("l:") ? layout.leaves : layout.branches) + id.slice(2);
  const describeSet = (id: string) => `Redis set ${setKey(id)}`;

  return {
    where: `${redactRedisUrl(url)} (prefix ${prefix})`,
    async records() {
      await ready();
      const out: SourceRecord[] = [];
      for (const name of await scanKeys(client, `${globEscape(layout.records)}*`)) {
        const text = await client.get(name).catch(() => "");
        out.push({ key: name.slice(layout.records.length), text: text ?? "", where: `Redis key ${name}` });
      }
      return out;
    },
    async hasMedia(path) {
      await ready();
      return (await client.exists(`${prefix}m:${path.split("/").join(":")}`)) === 1;
    },
    async format() {
      await ready();
      return { key: "meta:format", where: `Redis key ${formatKey}`, text: await client.get(formatKey) };
    },
    async writeFormat(text) {
      await client.set(formatKey, text);
    },
    async indexProblems(keys) {
      await ready();
      const problems: DoctorProblem[] = [];
      const wanted = expectedSets(keys);
      const actual = await actualSets();
      for (const [id, members] of wanted) {
        const have = actual.get(id);
        for (const member of members) {
          if (!have?.has(member)) problems.push({ check: "index", key: member, where: describeSet(id), fixable: true, message: `missing from the list index: lists and exports do not see it` });
        }
      }
      for (const [id, members] of actual) {
        const want = wanted.get(id);
        for (const member of members) {
          if (!want?.has(member)) problems.push({ check: "index", key: member, where: describeSet(id), fixable: true, message: `listed, but no readable record is there` });
        }
      }
      return problems;
    },
    async rebuildIndexes(keys) {
      const wanted = expectedSets(keys);
      const actual = await actualSets();
      const done: string[] = [];
      for (const [id, members] of wanted) {
        const missing = [...members].filter((m) => !actual.get(id)?.has(m));
        if (missing.length > 0) await client.sadd(setKey(id), ...missing);
        for (const m of missing) done.push(`added ${m} to ${setKey(id)}`);
      }
      for (const [id, members] of actual) {
        const extra = [...members].filter((m) => !wanted.get(id)?.has(m));
        if (extra.length > 0) await client.srem(setKey(id), ...extra);
        for (const m of extra) done.push(`removed ${m} from ${setKey(id)}`);
      }
      // Persisted list indexes (see redis-index-snapshots.ts) may name what was just moved away: the next
      // start rebuilds them from the records.
      const snapshots = await scanKeys(client, `${globEscape(prefix)}ix:*`);
      if (snapshots.length > 0) {
        await client.del(...snapshots);
        done.push(`removed ${snapshots.length} persisted list index(es) under ${prefix}ix: (rebuilt from the records at the next start)`);
      }
      return done;
    },
    modeProblems: async () => [],
    fixModes: async () => [],
    async quarantine(record) {
      const target = `${prefix}quarantine:${record.key}`;
      // RENAMENX: an earlier quarantined copy of the same key is kept; this one gets a numbered name.
      let name = target;
      for (let n = 1; (await client.renamenx(layout.records + record.key, name)) === 0; n++) name = `${target}.${n}`;
      return `Redis key ${name}`;
    },
    async close() {
      if (connected) await client.quit().catch(() => client.disconnect());
      else client.disconnect();
    },
  };
}
