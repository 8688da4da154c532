import type { Context } from "./context.js";
import { CliError } from "./errors.js";
import { EXIT } from "./exit-codes.js";

/** A public URL in front of a local one. */
export interface Tunnel {
  getURL(): Promise<string>;
  close(): Promise<void>;
}

/**
 * Opens a quick tunnel to `url` (`--tunnel` of `lp listen` and `lp conformance`): untun's cloudflared
 * tunnel, the one listhen's `--tunnel` uses, imported only when asked for; or the stand-in the tests put
 * in `ctx.deps.startTunnel`, since they have no internet.
 */
export async function openTunnel(ctx: Context, url: string): Promise<Tunnel> {
  const start = ctx.deps.startTunnel ?? (await import("untun")).startTunnel;
  const tunnel = await start({ url });
  if (!tunnel) throw new CliError(EXIT.error, "--tunnel: the tunnel did not start (is the internet reachable, and cloudflared allowed to install?).");
  return tunnel;
}
