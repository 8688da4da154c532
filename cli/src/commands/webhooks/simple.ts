import type { Client } from "@lp/client";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { printItem } from "../../runtime/output.js";
import type { Column } from "../../runtime/table.js";

/** Options of the endpoint commands that take only an id: get, verify, rotate-secret, test. */
export interface EndpointIdOptions {
  id: string;
  json: boolean;
}

/** Shared `toOptions` of those commands. */
export function toEndpointIdOptions({ args, flags }: CommandInput): EndpointIdOptions {
  return { id: args[0], json: flags.json === true };
}

/** Calls `call` and prints the result with `fields`. */
export async function runOnEndpoint<T>(ctx: Context, opts: EndpointIdOptions, call: (client: Client) => Promise<T>, fields: Column<T>[]) {
  const result = await call(await ctx.client());
  printItem(ctx, result, fields, opts.json);
  return result;
}
