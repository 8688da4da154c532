import type { Client, Deployment, Job, Page, Product, ProductCreateInput } from "@lp/client";
import type { Context } from "../../runtime/context.js";
import { CliError } from "../../runtime/errors.js";
import { EXIT } from "../../runtime/exit-codes.js";
import { toFixtureImages } from "../../runtime/fixtures.js";
import { info } from "../../runtime/output.js";
import { pollWithHead, type WaitOptions } from "../../runtime/wait.js";
import { postCheckoutForm, type CheckoutPost } from "./checkout-form.js";
import type { Step } from "./scenarios.js";

/** A trigger fixture (fixtures/trigger.json) after `--override`. */
export type Fixture = Record<"product" | "product_update" | "page" | "page_update" | "checkout", Record<string, any>>;

/** Everything a scenario made or removed, for `--json` and the summary. */
export interface Made {
  product?: Product;
  job?: Job;
  page?: Page;
  deployment?: Deployment;
  checkout?: CheckoutPost;
  deleted: Array<{ object: "product" | "page"; id: string }>;
}

/** What every step needs. */
export interface StepContext {
  ctx: Context;
  client: Client;
  fixture: Fixture;
  fixtureFile: string;
  wait: WaitOptions;
  made: Made;
}

const simulate = (value?: string) => (value ? { "lp-simulate": value } : undefined);

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`lp trigger: step needs a ${what} made by an earlier step`);
  return value;
}

/** Runs one step against the API, recording what it made in `s.made`. */
export async function runStep(step: Step, s: StepContext): Promise<void> {
  const { client, made, ctx } = s;
  switch (step.kind) {
    case "product": {
      const images = await toFixtureImages(s.fixture.product.images, s.fixtureFile);
      made.product = await client.products.create({ ...s.fixture.product, ...(images ? { images } : {}) } as ProductCreateInput);
      info(ctx, `Created product ${made.product.id} (${made.product.title})`);
      return;
    }
    case "product_update":
      made.product = await client.products.update(need(made.product, "product").id, s.fixture.product_update);
      info(ctx, `Updated product ${made.product.id}`);
      return;
    case "product_delete": {
      const id = need(made.product, "product").id;
      await client.products.delete(id);
      made.deleted.push({ object: "product", id });
      info(ctx, `Deleted product ${id}`);
      return;
    }
    case "page": {
      const body = { ...s.fixture.page, product_id: need(made.product, "product").id };
      const accepted = await client.pages.create(body as never, { headers: simulate(step.simulate) });
      info(ctx, `Started generation job ${accepted.job_id}${step.simulate ? ` (Lp-Simulate: ${step.simulate})` : ""}`);
      const job = await pollWithHead(s.wait, (timeoutMs) => client.waitForJob(accepted.job_id, { intervalMs: s.wait.intervalMs, timeoutMs }));
      made.job = job;
      const expected = step.simulate ? "failed" : "completed";
      if (job.status !== expected) {
        const hint = step.simulate ? " (Lp-Simulate is honoured by lp serve only)" : "";
        throw new CliError(EXIT.error, `Job ${job.job_id} ${job.status}${job.error ? `: ${job.error.message}` : ""}; expected ${expected}${hint}.`, { code: job.error?.code ?? "unexpected_outcome" });
      }
      if (job.page_id) {
        made.page = await client.pages.get(job.page_id);
        info(ctx, `Generated page ${made.page.id}`);
      } else info(ctx, `Job ${job.job_id} failed as asked (${job.error?.code})`);
      return;
    }
    case "page_update":
      made.page = await client.pages.update(need(made.page, "page").id, s.fixture.page_update as never);
      info(ctx, `Updated page ${made.page.id}`);
      return;
    case "page_delete": {
      const id = need(made.page, "page").id;
      await client.pages.delete(id);
      made.deleted.push({ object: "page", id });
      info(ctx, `Deleted page ${id}`);
      return;
    }
    case "deploy": {
      const pageId = need(made.page, "page").id;
      const accepted = await client.deployments.create(pageId, { headers: simulate(step.simulate) });
      info(ctx, `Started deployment ${accepted.deployment_id}${step.simulate ? ` (Lp-Simulate: ${step.simulate})` : ""}`);
      if (!step.wait) {
        made.deployment = await client.deployments.get(pageId, accepted.deployment_id);
        return;
      }
      const deployment = await pollWithHead(s.wait, (timeoutMs) => client.waitForDeployment(pageId, accepted.deployment_id, { intervalMs: s.wait.intervalMs, timeoutMs }));
      made.deployment = deployment;
      const expected = step.simulate ? "failed" : "succeeded";
      if (deployment.status !== expected) {
        const hint = step.simulate ? " (Lp-Simulate is honoured by lp serve only)" : deployment.error_message ? `: ${deployment.error_message}` : "";
        throw new CliError(EXIT.error, `Deployment ${deployment.id} ${deployment.status}; expected ${expected}${hint}.`, { code: deployment.error_code ?? "unexpected_outcome" });
      }
      info(ctx, deployment.deployed_url ? `Deployed to ${deployment.deployed_url}` : `Deployment ${deployment.id} failed as asked (${deployment.error_code})`);
      return;
    }
    case "checkout": {
      const site = need(made.deployment?.deployed_url ?? undefined, "live site");
      const today = new Date().toISOString().slice(0, 10);
      made.checkout = await postCheckoutForm(ctx.deps.fetch ?? fetch, site, s.fixture.checkout, today);
      info(ctx, `Posted the checkout form of ${site} (${made.checkout.status})`);
      return;
    }
  }
}
