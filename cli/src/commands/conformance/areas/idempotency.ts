import { isDeepStrictEqual } from "node:util";
import { need } from "../checks.js";
import { dataOf } from "../http.js";
import type { Scenario } from "../scenario-context.js";
import { checkProduct } from "./products.js";
import { show } from "../schema-issues.js";

/**
 * Idempotency-Key on a product create: the same key and body replay the first answer (same status and
 * body, `Idempotent-Replayed: true`, no second product); the same key with another body is a 422.
 */
export async function idempotencyArea(s: Scenario): Promise<void> {
  const { check, http, ledger } = s;
  const base = s.accountPath("/products");
  const key = `${s.opts.runId}-create`;
  const body = { title: s.title("Canvas tote"), price: 24, product_type: "physical" };

  const first = await check("idempotency", "idempotency (first request)", "201 with the product", async (c) => {
    const ex = await http.send(c, "POST", base, { body, idempotencyKey: key });
    const id = ledger.fromAnswer(ex, "product", "product (Idempotency-Key)");
    checkProduct(s, c, ex, 201, body);
    return id ? { id, status: ex.status, body: ex.body } : undefined;
  });

  await check("idempotency", "idempotency (replay)", "the first answer again, with Idempotent-Replayed: true", async (c) => {
    const original = need(first, "idempotency (first request)");
    const ex = await http.send(c, "POST", base, { body, idempotencyKey: key });
    c.status(ex, original.status);
    const replayedId = dataOf(ex).id;
    if (replayedId !== original.id && ledger.fromAnswer(ex, "product", "product (second create under one Idempotency-Key)")) {
      c.problem(`created a second product (${replayedId}) instead of replaying ${original.id}`);
    } else {
      c.rule(isDeepStrictEqual(ex.body, original.body), "body: differs from the first answer");
    }
    const header = ex.headers.get("idempotent-replayed");
    c.rule(header === "true", `header Idempotent-Replayed: expected "true", got ${header === null ? "none" : show(header)}`);
  });

  await check("idempotency", "idempotency (same key, other body)", "422 idempotency_key_reused in the error envelope", async (c) => {
    need(first, "idempotency (first request)");
    const ex = await http.send(c, "POST", base, { body: { ...body, price: 25 }, idempotencyKey: key });
    if (ledger.fromAnswer(ex, "product", "product (other body under a used Idempotency-Key)")) c.note("a product was created; it is deleted with the others");
    c.envelope(ex, "idempotency_key_reused");
  });
}
