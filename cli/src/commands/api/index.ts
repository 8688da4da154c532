import type { Command } from "commander";
import { examples, lazy } from "../../runtime/define.js";
import { collect } from "../../runtime/parse.js";

/** `lp api METHOD PATH`: a raw request with the configured credentials. */
export function register(api: Command): void {
  api
    .description("Send a raw request; credentials are picked by the path (/v1/accounts, /v1/developer, /_admin)")
    .argument("<method>", "GET, POST, PATCH, DELETE, PUT")
    .argument("<path>", "path from the base URL; {account_id} is replaced by the configured account")
    .option("-d, --data <json>", "request body: JSON text, @file, or @- for stdin")
    .option("-H, --header <key:value>", "extra header; repeatable", collect);
  examples(api, [
    "lp api GET '/v1/accounts/{account_id}/products?per_page=5'",
    `lp api POST '/v1/accounts/{account_id}/products' -d '{"title":"Mug","price":9,"product_type":"physical"}'`,
    "lp api POST /v1/developer/webhook-endpoints -d @endpoint.json",
    "lp api GET /_admin/export > backup.json",
  ]).action(lazy(() => import("./request.js")));
}
