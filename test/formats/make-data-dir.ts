/**
 * Writes a small data dir in this lp's format into test/formats/data-dirs/format-<N>/, for
 * `data-dirs.test.ts`: run it once when the format changes (`npx tsx test/formats/make-data-dir.ts`), commit
 * the new folder, and keep every older one.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CURRENT_FORMAT } from "@lp/core";
import { startServer } from "@lp/server";

const target = new URL(`./data-dirs/format-${CURRENT_FORMAT}/`, import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "lp-format-"));
const server = await startServer({ storage: "fs", dataDir: dir, port: 0, log: null, admin: false, writtenBy: `lp (format ${CURRENT_FORMAT} fixture)` });
const account = server.credentials.account_id;
const image = readFileSync(new URL("../../fixtures/images/coffee-set.png", import.meta.url));
const apron = await server.core.products.create(account, { title: "Linen apron", price: 24, product_type: "physical", description: "Stone-washed linen." }, [{ filename: "coffee-set.png", bytes: image }]);
await server.core.products.create(account, { title: "Ceramics class", price: 60, product_type: "service" });
const { job_id } = await server.core.pages.create(account, { product_id: apron.id }, null);
await server.core.onIdle();
const pageId = (await server.core.pages.getJob(account, job_id)).page_id!;
await server.core.deployments.start(account, pageId, null);
await server.core.onIdle();
await server.close();
rmSync(target, { recursive: true, force: true });
cpSync(dir, target, { recursive: true, filter: (path) => !/(lp\.lock|\.tmp)$/.test(path) });
rmSync(dir, { recursive: true, force: true });
console.log(`wrote ${target}`);
