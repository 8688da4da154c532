/**
 * `@lp/cli/testing`: the lp server for a test suite, started in-process.
 *
 * @example
 * import { startLp } from "@lp/cli/testing";
 * await using lp = await startLp();
 */
export { startLp, type Lp, type LpClock, type LpCredentials, type StartLpOptions } from "./start-lp/start-lp.js";
export type { NextOptions, WebhookInbox } from "./start-lp/webhook-inbox.js";
export type { RequestFilter, RequestJournal, WaitForOptions } from "./start-lp/request-journal.js";
export type { JournalEntry } from "@lp/contract";
export type { WebhookEvent } from "@lp/webhooks";
