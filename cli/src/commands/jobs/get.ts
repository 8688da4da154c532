import type { Job } from "@lp/client";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { printItem } from "../../runtime/output.js";
import { settleJob, toWaitOptions, type WaitOptions } from "../../runtime/wait.js";
import { jobFields } from "../pages/views.js";

/** Options of `lp jobs get`. */
export interface GetJobOptions {
  jobId: string;
  wait: WaitOptions;
  json: boolean;
}

/** Turns the parsed flags of `lp jobs get` into its options; usage errors only, no I/O. */
export function toOptions({ args, flags }: CommandInput, ctx: Pick<Context, "io">): GetJobOptions {
  return { jobId: args[0], wait: { ...toWaitOptions(flags, ctx.io.env), firstPollMs: 0 }, json: flags.json === true };
}

/** Runs `lp jobs get`. */
export async function run(opts: GetJobOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  const print = (job: Job) => printItem(ctx, job, jobFields, opts.json);
  if (opts.wait.wait) await settleJob(ctx, opts.jobId, opts.wait, print);
  else print(await client.jobs.get(opts.jobId));
}
