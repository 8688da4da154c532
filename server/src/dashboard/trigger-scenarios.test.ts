import { EVENT_TYPES } from "@lp/contract/events";
import { describe, expect, it } from "vitest";
import { SCENARIOS, type Step } from "../../../cli/src/commands/trigger/scenarios.js";
import { TRIGGER_SCENARIOS, type TriggerStep } from "./trigger-scenarios.js";

/** The CLI's step, named as the console's table names it. */
function asConsoleStep(step: Step): TriggerStep {
  if (step.kind === "page") return step.simulate ? "page_failed" : "page";
  if (step.kind === "deploy") return step.simulate ? "deploy_failed" : step.wait ? "deploy" : "deploy_started";
  return step.kind;
}

describe("the console's Send an event scenarios", () => {
  it("cover every event of the catalogue with the same calls as lp trigger", () => {
    expect(Object.keys(TRIGGER_SCENARIOS).sort()).toEqual([...EVENT_TYPES].sort());
    for (const event of EVENT_TYPES) expect(TRIGGER_SCENARIOS[event].steps, event).toEqual(SCENARIOS[event].steps.map(asConsoleStep));
  });
});
