import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canUnshare, createContainerRoot, execForm, execInside, isRoot, missingTools, NODE_UID, procStatus, readDockerfile, runAsPid1 } from "./container-root.js";
import { EXE, exeBuilt, warnIfMissing } from "./exe-harness.js";

warnIfMissing("the image's command as PID 1 (test/exe/container.test.ts)");
// As root with LP_REQUIRE_EXE=1 (CI), what is missing is a failure; elsewhere (a developer, a hosted runner) a skip.
const why = `it needs root, ${missingTools.length > 0 ? `and ${missingTools.join(", ")} (Debian's util-linux, coreutils, iproute2), ` : ""}and the right to make PID, mount and network namespaces`;
if (exeBuilt && !canUnshare && isRoot && process.env.LP_REQUIRE_EXE === "1") throw new Error(`the image's command cannot run as PID 1 here (LP_REQUIRE_EXE=1): ${why}`);
if (exeBuilt && !canUnshare) console.warn(`[lp] skipping the image's command as PID 1: ${why}`);

/**
 * What the image does, with no Docker daemon: its ENTRYPOINT, read from the Dockerfile, runs the executable
 * as PID 1 of its own PID, mount and network namespaces, as the unprivileged `node` user, with /data
 * for its data; its HEALTHCHECK runs inside, as Docker runs it.
 */
describe.skipIf(!exeBuilt || !canUnshare)("the image's command, run as PID 1 under a non-root user", () => {
  const { runtime } = readDockerfile();
  const entrypoint = execForm(runtime.find((i) => i.getKeyword() === "ENTRYPOINT")!)!;
  const healthcheck = execForm(runtime.find((i) => i.getKeyword() === "HEALTHCHECK")!)!;
  let container: ReturnType<typeof createContainerRoot>;
  beforeAll(() => {
    container = createContainerRoot(EXE);
  });
  afterAll(() => container?.remove());

  const start = async () => {
    const lp = runAsPid1(container.root, entrypoint);
    await lp.waitFor("stderr", /^Ready at /m);
    const credentials = Object.fromEntries([...lp.stderr.matchAll(/^\s*(LP_[A-Z_]+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
    return { lp, pid: lp.pid(), credentials };
  };

  it("is healthy, keeps its data in /data across a SIGTERM (exit 0) and a new start", async () => {
    const first = await start();
    const status = procStatus(first.pid);
    expect(status.NSpid!.split(/\s+/).at(-1), "lp is PID 1 in its namespace").toBe("1");
    expect(status.Uid!.split(/\s+/)[0]).toBe(String(NODE_UID));
    const health = await execInside(first.pid, healthcheck);
    expect(health.code, health.stderr).toBe(0);
    expect(JSON.parse(health.stdout)).toMatchObject({ status: "ok", storage: "sqlite" });
    // A non-loopback bind with the generated admin key, which is long enough: the banner says /_admin is reachable.
    expect(first.lp.stderr).toMatch(/\/_admin \(which mints tokens\) is reachable from the network/);

    const created = await execInside(first.pid, ["lp", "products", "create", "--title", "Kept in the volume", "--price", "9", "--type", "service", "--json"], first.credentials);
    expect(created.code, created.stderr).toBe(0);
    process.kill(first.pid, "SIGTERM");
    expect(await first.lp.exited, first.lp.stderr).toBe(0);

    const second = await start();
    try {
      expect(second.credentials.LP_TOKEN, "the same credentials, from /data").toBe(first.credentials.LP_TOKEN);
      const listed = await execInside(second.pid, ["lp", "products", "list", "--json"], second.credentials);
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout).map((p: { title: string }) => p.title)).toEqual(["Kept in the volume"]);
    } finally {
      process.kill(second.pid, "SIGTERM");
      expect(await second.lp.exited, second.lp.stderr).toBe(0);
    }
  }, 90_000);
});
