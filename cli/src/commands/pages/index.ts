import type { Command } from "commander";
import { examples, lazy, withJson, withList, withWait } from "../../runtime/define.js";
import { collect } from "../../runtime/parse.js";

/** `lp pages ...`: landing pages, their generation and deployment. */
export function register(noun: Command): void {
  const create = noun
    .command("create")
    .description("Generate a landing page for a product (asynchronous job)")
    .option("--product-id <id>", "an existing product of the account")
    .option("--title <text>", "inline product: title")
    .option("--description <text>", "inline product: description")
    .option("--price <amount>", "inline product: price")
    .option("--type <type>", "inline product: physical or service")
    .option("--delivery-price <amount>", "inline product: delivery price")
    .option("--image <url>", "inline product: image URL; repeatable", collect)
    .option("--language <tag>", "page language, e.g. en, fr, es, de (default en)")
    .option("--angle <text>", "marketing angle")
    .option("--primary-color <color>", "design: primary colour")
    .option("--secondary-color <color>", "design: secondary colour")
    .option("--background-color <color>", "design: background colour")
    .option("--text-color <color>", "design: text colour")
    .option("--font-family <fonts>", "design: font stack")
    .option("--checkout-field <key:type[:label[:options]]>", "checkout field; key? = optional, select options a|b; repeatable", collect)
    .option("--simulate <fault>", "local server only: slow or generation_failed")
    .option("--idempotency-key <key>", "replay-safe key for retries");
  examples(withJson(withWait(create, "job")), [
    "lp pages create --product-id 3f0c... --language fr --wait",
    'lp pages create --title "Yoga class" --description "One hour" --price 20 --type service --checkout-field email:email --checkout-field "notes?:textarea:Anything else?"',
    "lp pages create --product-id 3f0c... --wait --json | jq -r .id",
  ]).action(lazy(() => import("./create.js")));

  const list = noun
    .command("list")
    .description("List pages (newest first)")
    .option("--status <status>", "draft or published")
    .option("--product-id <id>", "pages of one product")
    .option("--query <text>", "search in slug and product title")
    .option("--created-after <date>", "ISO 8601 date or date-time (exclusive)")
    .option("--created-before <date>", "ISO 8601 date or date-time (exclusive)")
    .option("--sort <field>", "created_at, updated_at or slug; prefix - for descending");
  examples(withJson(withList(list)), ["lp pages list --status published", "lp pages list --all --json"]).action(lazy(() => import("./list.js")));

  examples(withJson(noun.command("get").description("Show a page with its theme and SEO settings").argument("<id>", "page id")), [
    "lp pages get 7d2e...",
  ]).action(lazy(() => import("./get.js")));

  const update = noun
    .command("update")
    .description("Merge-patch a page's theme and SEO settings (value null removes a key)")
    .argument("<id>", "page id")
    .option("--theme <key=value>", "global_theme key, e.g. primaryColor=#336699; repeatable", collect)
    .option("--seo <key=value>", "seo_config key, e.g. title=My page; repeatable", collect);
  examples(withJson(update), ['lp pages update 7d2e... --theme primaryColor=#0a7 --seo "title=Best lamp" --seo noindex=true']).action(
    lazy(() => import("./update.js")),
  );

  examples(withJson(noun.command("delete").description("Delete a page with its deployments and live site").argument("<id>", "page id")), [
    "lp pages delete 7d2e...",
  ]).action(lazy(() => import("./delete.js")));

  const deploy = noun
    .command("deploy")
    .description("Deploy a page as it stands (asynchronous)")
    .argument("<page-id>", "page id")
    .option("--simulate <fault>", "local server only: slow or deployment_failed")
    .option("--idempotency-key <key>", "replay-safe key for retries");
  examples(withJson(withWait(deploy, "deployment")), ["lp pages deploy 7d2e... --wait", "lp pages deploy 7d2e... --wait --json | jq -r .deployed_url"]).action(
    lazy(() => import("./deploy.js")),
  );
}
