import type { Client, ClientOptions, FetchLike } from "@lp/client";
import { createColors, type Colors } from "./color.js";
import { resolveConfig, type GlobalFlags, type ResolvedConfig } from "./config.js";
import { UsageError } from "./errors.js";
import { isInteractive, type Io } from "./io.js";
import { inquirerPrompter, type Prompter } from "./prompt.js";
import { VERSION } from "./version.js";

/** What tests (and embedders) may replace. */
export interface ContextDeps {
  /** The fetch the client uses: e.g. `app.request` of an in-process server. */
  fetch?: FetchLike;
  prompt?: Prompter;
  /** Replaces `startServer` of `@lp/server` (tests of `lp serve` that check what it is given). */
  startServer?: (options: Record<string, unknown>) => Promise<unknown>;
  /** Replaces the browser opener (`lp serve --open`, `lp dashboard --open`). */
  openUrl?: (url: string, onFail: (command: string) => void) => void;
  /** Replaces untun's `startTunnel` (`lp listen --tunnel`: the tests have no internet). */
  startTunnel?: (options: { url: string }) => Promise<{ getURL(): Promise<string>; close(): Promise<void> } | undefined>;
}

/** What every command's `run` receives besides its options: IO, config, the client, prompts. */
export interface Context {
  io: Io;
  flags: GlobalFlags;
  colors: { out: Colors; err: Colors };
  /** True when stdin and stdout are terminals: prompts and spinners allowed. */
  canPrompt: boolean;
  prompt: Prompter;
  deps: ContextDeps;
  /** The resolved configuration (flag, env, profile, dev credentials, defaults). */
  config(options?: { allowMissingProfile?: boolean }): Promise<ResolvedConfig>;
  /** A client for the resolved configuration; `@lp/client` is loaded on first use. */
  client(): Promise<Client>;
}

/** Builds the {@link Context} of one invocation. */
export function createContext(io: Io, flags: GlobalFlags, deps: ContextDeps = {}): Context {
  let config: Promise<ResolvedConfig> | undefined;
  let client: Promise<Client> | undefined;
  const ctx: Context = {
    io,
    flags,
    colors: { out: createColors(io, "stdout"), err: createColors(io, "stderr") },
    canPrompt: isInteractive(io),
    prompt: deps.prompt ?? inquirerPrompter,
    deps,
    config(options) {
      if (options?.allowMissingProfile) return resolveConfig(flags, io.env, io.cwd, options);
      config ??= resolveConfig(flags, io.env, io.cwd);
      return config;
    },
    client() {
      client ??= (async () => {
        const options = toClientOptions((await ctx.config()).values, deps);
        const { createClient } = await import("@lp/client");
        return createClient(options);
      })();
      return client;
    },
  };
  return ctx;
}

/**
 * The options of `createClient` for resolved config values: every command's client is made from these
 * (`lp conformance` makes variants of them, without the token or with another one).
 */
export function toClientOptions(values: ResolvedConfig["values"], deps: ContextDeps): ClientOptions {
  const url = values.api_url!;
  if (!/^https?:\/\//.test(url)) throw new UsageError(`API URL '${url}' must start with http:// or https:// (--api-url, LP_API_URL).`);
  return {
    baseUrl: url,
    token: values.token,
    accountId: values.account,
    appId: values.app_id,
    appSecret: values.app_secret,
    adminKey: values.admin_key,
    fetch: deps.fetch,
    headers: { "user-agent": `lp-cli/${VERSION}` },
  };
}
