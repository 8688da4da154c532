/**
 * The products of the restart benchmarks (`bench/list-restart.ts`, `bench/profile-restart.ts`): `count` of
 * them in one account, written below the server (transactions of 1,000)
 * while no server runs, so a restarted server finds them as its own.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { openDataDir } from "../../core/src/db/open-data-dir.js";
import { toProductRow } from "../../core/src/products/product-repository.js";
import type { ProductRecord } from "../../core/src/products/product-view.js";

/** Product `i` of `account`: ids and creation times both sort by `i`. */
export function restartProduct(account: string, i: number) {
  const id = `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`;
  const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  return { id, account_id: account, title: `Product ${i}`, description: `A product for the restart benchmark, number ${i}.`, price: 10 + (i % 90), original_price: null, delivery_price: null, product_type: i % 3 ? "physical" : "service", images: [], checkout_fields: null, created_at: at, updated_at: at, deleted_at: null };
}

/**
 * Writes the products into a data dir's database (the server reads them as any others), and raises the
 * account's product quota above them (as `lp admin accounts create --product-quota` would), so that a bench
 * can still create products through the API.
 */
export async function seedSqliteProducts(dataDir: string, account: string, count: number): Promise<void> {
  const database = await openDataDir(dataDir, { log: () => {}, writtenBy: "lp bench seed" });
  try {
    await database.db.updateTable("accounts").set({ product_quota: count + 10_000 }).where("account_id", "=", account).execute();
    for (let start = 0; start < count; start += 1000) {
      const rows: ReturnType<typeof toProductRow>[] = [];
      for (let i = start; i < Math.min(count, start + 1000); i++) rows.push(toProductRow(restartProduct(account, i) as ProductRecord));
      await database.transaction(async (tx) => {
        for (let at = 0; at < rows.length; at += 500) await tx.insertInto("products").values(rows.slice(at, at + 500)).execute();
      });
    }
  } finally {
    await database.close();
  }
}

/** A built `lp serve` started by a restart benchmark: the process, its URL and the environment it printed. */
export interface ServedLp {
  child: ChildProcess;
  url: string;
  env: Record<string, string>;
}

/**
 * Starts `cli/dist/bin.js serve` (port 0, `--print-env --quiet`, `args` after) under `repo`, with `node` flags
 * before the script and `env` added, HOME at `home`; resolves once it says Ready and has printed its token.
 */
export async function spawnServe(repo: string, home: string, args: string[], node: string[] = [], env: Record<string, string> = {}): Promise<ServedLp> {
  const child = spawn(process.execPath, [...node, join(repo, "cli/dist/bin.js"), "serve", "--port", "0", "--print-env", "--quiet", ...args], {
    env: { ...process.env, ...env, HOME: home },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (c) => (out += c));
  child.stderr!.on("data", (c) => (err += c));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const ready = /Ready at (\S+)/.exec(err);
      if (ready && out.includes("LP_TOKEN=")) (clearInterval(timer), resolve(ready[1]!));
    }, 5);
    child.on("exit", (code) => (clearInterval(timer), reject(new Error(`lp serve exited ${code}: ${err}`))));
  });
  const printed = Object.fromEntries(out.trim().split("\n").map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
  return { child, url, env: printed };
}

/** Stops a served lp with SIGTERM and waits for it to exit. */
export async function stopServe(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}
