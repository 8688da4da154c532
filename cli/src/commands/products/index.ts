import type { Command } from "commander";
import { examples, lazy, withJson, withList } from "../../runtime/define.js";
import { collect } from "../../runtime/parse.js";

const fields = (command: Command) =>
  command
    .option("--title <text>", "product title")
    .option("--price <amount>", "price, e.g. 49.90")
    .option("--type <type>", "physical or service")
    .option("--description <text>", "description")
    .option("--original-price <amount>", "price before discount")
    .option("--delivery-price <amount>", "delivery price")
    .option("--image <path-or-url>", "image: a local file (uploaded) or an http(s) URL; repeatable", collect);

/** `lp products ...`: the account's products. */
export function register(noun: Command): void {
  const create = fields(noun.command("create").description("Create a product")).option("--idempotency-key <key>", "replay-safe key for retries");
  examples(withJson(create), [
    'lp products create --title "Desk lamp" --price 39.90 --type physical --image ./lamp.png',
    'lp products create --title "Yoga class" --price 20 --type service --json | jq -r .id',
  ]).action(lazy(() => import("./create.js")));

  const list = noun
    .command("list")
    .description("List products (newest first)")
    .option("--type <type>", "only physical or service products")
    .option("--query <text>", "case-insensitive search in title and description")
    .option("--created-after <date>", "ISO 8601 date or date-time (exclusive)")
    .option("--created-before <date>", "ISO 8601 date or date-time (exclusive)")
    .option("--sort <field>", "created_at, updated_at, title or price; prefix - for descending");
  examples(withJson(withList(list)), ["lp products list --type service --sort price", "lp products list --all --json | jq length"]).action(
    lazy(() => import("./list.js")),
  );

  examples(withJson(noun.command("get").description("Show a product with its images").argument("<id>", "product id")), [
    "lp products get 3f0c6a7e-... --json",
  ]).action(lazy(() => import("./get.js")));

  const update = fields(noun.command("update").description("Update a product; new images are appended").argument("<id>", "product id"))
    .option("--remove-image <image-id>", "remove an image; repeatable", collect)
    .option("--reorder <image-id=order>", "set an image's display order; repeatable", collect);
  examples(withJson(update), [
    "lp products update 3f0c... --price 35 --description ''",
    "lp products update 3f0c... --image ./back.png --reorder 9a1b...=0",
  ]).action(lazy(() => import("./update.js")));

  examples(withJson(noun.command("delete").description("Delete (soft-delete) a product").argument("<id>", "product id")), [
    "lp products delete 3f0c...",
  ]).action(lazy(() => import("./delete.js")));
}
