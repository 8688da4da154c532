import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../../testing/harness.js";

describe("lp completion", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(() => h.close());

  it("prints bash, zsh and fish scripts that know the commands and flags", async () => {
    const bash = await h.lp(["completion", "bash"]);
    expect(bash.stdout).toContain("complete -o default -F _lp_complete lp");
    expect(bash.stdout).toMatch(/"products:create"\) words="[^"]*--title[^"]*--image/);
    expect(bash.stdout).toMatch(/"admin:tokens"\) words="create/);
    const zsh = await h.lp(["completion", "zsh"]);
    expect(zsh.stdout.startsWith("#compdef lp\nautoload -U +X bashcompinit && bashcompinit\n")).toBe(true);
    const fish = await h.lp(["completion", "fish"]);
    expect(fish.stdout).toContain("complete -c lp -n '__fish_seen_subcommand_from webhooks' -a rotate-secret");
    expect((await h.lp(["completion", "powershell"])).code).toBe(2);
  });
});
