import { resolve } from "node:path";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { UsageError } from "../../runtime/errors.js";
import { EVENT_TYPES, type EventType } from "../../runtime/events.js";
import { findFixture, readFixtureText } from "../../runtime/fixtures.js";
import { info, printItem, printList, type Column } from "../../runtime/output.js";
import { toWaitOptions, type WaitOptions } from "../../runtime/wait.js";
import { applyOverrides, FIXTURE_SECTIONS, toOverride } from "./overrides.js";
import { SCENARIOS } from "./scenarios.js";
import { runStep, type Fixture, type Made } from "./steps.js";

/** Options of `lp trigger`. */
export interface TriggerOptions {
  /** Null with `--list`. */
  event: EventType | null;
  overrides: string[];
  fixture?: string;
  wait: WaitOptions;
  json: boolean;
}

/** Turns the parsed flags of `lp trigger` into its options; usage errors only, no I/O. */
export function toOptions({ args, flags }: CommandInput, ctx: Pick<Context, "io">): TriggerOptions {
  const overrides = (flags.override as string[] | undefined) ?? [];
  overrides.forEach(toOverride);
  const wait = toWaitOptions({ wait: true, timeout: flags.timeout }, ctx.io.env);
  if (flags.list) {
    if (args[0]) throw new UsageError("Give an event or --list, not both.");
    return { event: null, overrides, wait, json: flags.json === true };
  }
  const event = args[0];
  if (!event) throw new UsageError("Missing EVENT: one of the events 'lp trigger --list' shows, e.g. lp trigger product.created.");
  if (!(EVENT_TYPES as readonly string[]).includes(event)) throw new UsageError(`Unknown event '${event}'; 'lp trigger --list' shows the ${EVENT_TYPES.length} events.`);
  return { event: event as EventType, overrides, fixture: flags.fixture, wait, json: flags.json === true };
}

/** Reads the fixture file (fixtures/trigger.json unless `--fixture`) and applies the overrides. */
async function loadFixture(opts: TriggerOptions, cwd: string): Promise<{ fixture: Fixture; file: string }> {
  const file = opts.fixture ? resolve(cwd, opts.fixture) : await findFixture("trigger.json", "--fixture");
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFixtureText(file));
  } catch (error) {
    throw new UsageError(`--fixture: cannot read ${file}: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new UsageError(`--fixture: ${file} must hold a JSON object.`);
  const base = Object.fromEntries(
    FIXTURE_SECTIONS.map((section) => {
      const value = (parsed as Record<string, unknown>)[section] ?? {};
      if (value === null || typeof value !== "object" || Array.isArray(value)) throw new UsageError(`--fixture: '${section}' in ${file} must be an object.`);
      return [section, value];
    }),
  );
  return { fixture: applyOverrides(base, opts.overrides) as Fixture, file };
}

const LIST_COLUMNS: Column<[string, (typeof SCENARIOS)[EventType]]>[] = [
  ["event", ([event]) => event],
  ["what lp trigger does", ([, scenario]) => scenario.summary],
];

/** `--json`: only what was made. */
function toJson(event: EventType, made: Made) {
  return Object.fromEntries(Object.entries({ event, ...made }).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0)));
}

const MADE_FIELDS: Column<Made>[] = [
  ["product", (m) => m.product?.id],
  ["job", (m) => m.job && `${m.job.job_id} (${m.job.status})`],
  ["page", (m) => m.page?.id],
  ["deployment", (m) => m.deployment && `${m.deployment.id} (${m.deployment.status})`],
  ["site", (m) => m.deployment?.deployed_url],
  ["checkout", (m) => m.checkout && `${m.checkout.url} (${m.checkout.status})`],
  ["deleted", (m) => m.deleted.map((d) => `${d.object} ${d.id}`)],
];

const presentFields = (made: Made) =>
  MADE_FIELDS.filter(([, get]) => {
    const value = get(made);
    return value !== undefined && !(Array.isArray(value) && value.length === 0);
  });

/** Runs `lp trigger`: lists the events, or makes the API calls that cause one. */
export async function run(opts: TriggerOptions, ctx: Context): Promise<void> {
  if (opts.event === null) {
    const rows = Object.entries(SCENARIOS) as Array<[EventType, (typeof SCENARIOS)[EventType]]>;
    if (opts.json) ctx.io.stdout.write(`${JSON.stringify(rows.map(([event, s]) => ({ event, summary: s.summary, steps: s.steps.map((step) => step.kind) })), null, 2)}\n`);
    else printList(ctx, rows, LIST_COLUMNS, false);
    return;
  }
  const { fixture, file } = await loadFixture(opts, ctx.io.cwd);
  const client = await ctx.client();
  const made: Made = { deleted: [] };
  try {
    for (const step of SCENARIOS[opts.event].steps) await runStep(step, { ctx, client, fixture, fixtureFile: file, wait: opts.wait, made });
  } catch (error) {
    // Whatever was made stays: say what, so it can be inspected or cleaned up.
    const so = presentFields(made);
    if (so.length) info(ctx, `Made before the failure: ${so.map(([name, get]) => `${name} ${get(made)}`).join(", ")}`);
    throw error;
  }
  if (opts.json) {
    ctx.io.stdout.write(`${JSON.stringify(toJson(opts.event, made), null, 2)}\n`);
    return;
  }
  printItem(ctx, made, presentFields(made), false);
  info(ctx, `Triggered ${opts.event}.`);
}
