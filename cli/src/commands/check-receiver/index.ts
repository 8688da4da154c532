import type { Command } from "commander";
import { examples, lazy } from "../../runtime/define.js";
import { collect } from "../../runtime/parse.js";

/** `lp check-receiver`: prove that a webhook receiver refuses forged deliveries and accepts real ones. */
export function register(check: Command): void {
  check
    .description("Check that your webhook receiver accepts real deliveries and refuses forged ones (exit 1 if not)")
    .argument("<url>", "the receiver's URL, as you would register it")
    .option("--secret <whsec>", "the secret your receiver verifies with (env LP_WEBHOOK_SECRET)")
    .option("--previous-secret <whsec>", "a second secret the receiver still accepts during a rotation: adds a case signed with it")
    .option("--expect-challenge", "fail when the receiver does not answer lp's verification challenge (otherwise: info)")
    .option("--header <name:value>", "send this header with every request, e.g. 'Authorization: Bearer ...'; repeatable", collect)
    .option("--timeout <duration>", "how long one request may take before it counts as crashed", "15s")
    .option("--event <type>", "the event delivered, with sample data from the catalogue", "product.created")
    .option("--json", "print the report as one JSON object");
  check.addHelpText(
    "after",
    `
What it sends, one request after another, each a real Standard Webhooks delivery (webhook-id,
webhook-timestamp, webhook-signature) of the chosen event, as lp signs them:

  must be accepted (2xx)  valid                a valid delivery
                          rotation             two signatures, only the second made with --secret
                          previous-secret      (with --previous-secret) only matching the previous secret
                          challenge            lp's verification challenge: 200 echoing the nonce
                                               (info if unanswered, a failure with --expect-challenge)
  must be refused (4xx)   tampered-body        the body changed after signing
                          wrong-secret         signed with another secret
                          no-signature         no webhook-signature header
                          malformed-signature  a truncated, non-base64 signature
                          stale-timestamp      signed 10 minutes ago (a replay)
                          future-timestamp     signed 10 minutes ahead
                          reserialized-json    signed over compact JSON, sent indented: caught when
                                               the receiver verifies JSON.stringify(req.body)
  informative             duplicate-id         the same delivery twice; deduplicating is your job

A 5xx, a timeout or a dropped connection is reported as "crashed" and fails the case. Redirects
are not followed (lp never follows one) and fail the case. Answers slower than 10 s are flagged.

Output: a table on a terminal; otherwise one tab-separated line per case (case, expected, got,
verdict, time, note); --json prints the whole report. Exit 0 when every case is as expected, 1 if any
failed, 2 on a usage error. The same checks run in your own tests with checkReceiver() from
@lp/webhooks.`,
  );
  examples(check, [
    "lp check-receiver http://127.0.0.1:3000/webhooks --secret whsec_...",
    "export LP_WEBHOOK_SECRET=\"whsec_$(openssl rand -base64 32)\"   # in CI: a throwaway secret for the receiver and the check",
    "LP_WEBHOOK_SECRET=whsec_... lp check-receiver https://staging.example.com/hooks --header 'Authorization: Bearer ...'",
    "lp check-receiver http://127.0.0.1:3000/webhooks --secret whsec_new --previous-secret whsec_old --expect-challenge",
    "lp check-receiver http://127.0.0.1:3000/webhooks --secret whsec_... --event checkout.submitted --json",
  ]).action(lazy(() => import("./check-receiver.js")));
}
