import type { DeliveryListQuery } from "@lp/client";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { fetchItems, toListOptions, type ListOptions } from "../../runtime/list.js";
import { printList } from "../../runtime/output.js";
import { compact } from "../../runtime/parse.js";
import { deliveryColumns } from "./views.js";

/** Options of `lp webhooks deliveries`. */
export interface DeliveriesOptions extends ListOptions {
  id: string;
  query: DeliveryListQuery;
  json: boolean;
}

/** Turns the parsed flags of `lp webhooks deliveries` into its options; usage errors only, no I/O. */
export function toOptions({ args, flags }: CommandInput): DeliveriesOptions {
  return { ...toListOptions(flags), id: args[0], query: compact({ status: flags.status, event_type: flags.eventType }), json: flags.json === true };
}

/** Runs `lp webhooks deliveries`. */
export async function run(opts: DeliveriesOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  const items = await fetchItems(ctx, (q: DeliveryListQuery) => client.webhooks.deliveries(opts.id, q), opts.query, opts);
  printList(ctx, items, deliveryColumns, opts.json);
}
