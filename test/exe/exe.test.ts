import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LpProcess } from "../../cli/src/e2e/processes.js";
import { createExeSandbox, exeBuilt, pngSize, servedEnv, warnIfMissing } from "./exe-harness.js";

warnIfMissing("the single executable's tests (test/exe/exe.test.ts)");

const fixture = JSON.parse(readFileSync(new URL("../../fixtures/products.json", import.meta.url), "utf8")) as Array<{ title: string }>;
const { version } = JSON.parse(readFileSync(new URL("../../cli/package.json", import.meta.url), "utf8")) as { version: string };

/**
 * The single executable as someone without Node runs it: copied alone into an empty folder and started with
 * a PATH on which there is no Node, on the embedded store, in the order a user goes (serve, a page, a site,
 * webhooks, conformance, a stop and a restart).
 */
describe.skipIf(!exeBuilt)("lp as a single executable, with no Node on PATH", () => {
  let box: ReturnType<typeof createExeSandbox>;
  let data: string;
  let serve: LpProcess;
  let env: Record<string, string>;
  let url: string;
  let site: { url: string; title: string };
  const start = async () => {
    serve = box.spawn(["serve", "--port", "0", "--data-dir", data, "--seed", "--print-env"]);
    [, url] = (await serve.waitFor("stderr", /^Ready at (http:\/\/\S+)/m)) as unknown as [string, string];
    env = await servedEnv(serve);
  };
  const stop = async () => {
    serve.child.kill("SIGTERM");
    return serve.exited;
  };
  const lp = (args: string[]) => box.run(args, env);

  beforeAll(async () => {
    box = createExeSandbox();
    data = join(box.dir, "data");
    await start();
  }, 60_000);
  afterAll(async () => {
    if (serve?.child.exitCode === null) await stop();
    box?.remove();
  });

  it("--version names its version and the Node inside, and nothing goes to stderr", async () => {
    const result = await box.run(["--version"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(new RegExp(`^lp ${version.replaceAll(".", "\\.")} \\(node v\\d+\\.\\d+\\.\\d+, single executable\\)\\n$`));
  });

  it("serves the embedded store, seeded from the samples inside it, with no warning on stderr", async () => {
    expect(await (await fetch(`${url}/healthz`)).json()).toMatchObject({ status: "ok", storage: "sqlite" });
    const products = await lp(["products", "list", "--limit", "100", "--json"]);
    expect(products.code, products.stderr).toBe(0);
    const seeded = products.json() as Array<{ title: string; preview_image_url: string }>;
    expect(seeded.map((p) => p.title).sort()).toEqual(fixture.map((p) => p.title).sort());
    // The samples' photos were uploaded from the executable's assets, and are served back as PNGs.
    const photos = seeded.map((p) => p.preview_image_url).filter((u) => u.endsWith(".png"));
    expect(photos.length).toBe(fixture.filter((p) => "images" in p).length);
    for (const photo of photos) expect(pngSize(new Uint8Array(await (await fetch(photo)).arrayBuffer())), photo).not.toBeNull();
    expect(serve.stderr).not.toMatch(/warning|require\(\)|experimental/i);
  });

  it("serves the dashboard's UI from its assets", async () => {
    const [, login] = /dashboard: (\S+)/.exec(serve.stderr)!;
    const cookie = (await fetch(login!, { redirect: "manual" })).headers.get("set-cookie")!.split(";")[0]!;
    const page = await (await fetch(`${url}/_dashboard/`, { headers: { cookie } })).text();
    const [, script] = /src="(\/_dashboard\/assets\/[^"]+\.js)"/.exec(page)!;
    const [, style] = /href="(\/_dashboard\/assets\/[^"]+\.css)"/.exec(page)!;
    for (const asset of [script, style]) {
      const response = await fetch(`${url}${asset}`, { headers: { cookie } });
      expect(response.status, asset).toBe(200);
      expect((await response.text()).length, asset).toBeGreaterThan(1000);
    }
  });

  it("generates a page with its pictures, its Open Graph PNG drawn by resvg, and deploys it as a site", async () => {
    // A product without photos: its page's pictures are the ones lp draws.
    const created = await lp(["products", "create", "--title", "Harbour Walking Tour", "--price", "25", "--type", "service", "--json"]);
    expect(created.code, created.stderr).toBe(0);
    const product = created.json() as { id: string; title: string };
    const page = await lp(["pages", "create", "--product-id", product.id, "--wait", "--json"]);
    expect(page.code, page.stderr).toBe(0);
    const deployed = await lp(["pages", "deploy", page.json().id, "--wait", "--json"]);
    expect(deployed.code, deployed.stderr).toBe(0);
    site = { url: deployed.json().deployed_url as string, title: product.title };
    const html = await (await fetch(site.url)).text();
    expect(html).toContain(product.title);
    const og = /<meta property="og:image" content="([^"]+)"/.exec(html)?.[1];
    expect(og, "the page names an Open Graph image").toMatch(/\/og-[0-9a-f]{20}\.png$/);
    const png = new Uint8Array(await (await fetch(og!)).arrayBuffer());
    expect(pngSize(png)).toEqual({ width: 1200, height: 630 });
    const images = [...html.matchAll(/<img[^>]+src="([^"]+)"/g)].map((m) => m[1]!);
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) expect((await fetch(new URL(image, site.url))).status, image).toBe(200);
  }, 60_000);

  it("lp listen --expect receives what lp trigger causes", async () => {
    const listen = box.spawn(["listen", "--register", "--expect", "product.created", "--timeout", "60s"], env);
    await listen.waitFor("stderr", /Ready: receiving webhooks at /);
    const trigger = await lp(["trigger", "product.created"]);
    expect(trigger.code, trigger.stderr).toBe(0);
    expect(await listen.exited, listen.stderr).toBe(0);
    expect(listen.stdout).toMatch(/product\.created .* verified/);
  }, 60_000);

  it("lp conformance passes against itself, uploading the sample image inside it", async () => {
    const run = await lp(["conformance", "--poll-interval", "2s"]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stderr).toMatch(/: \d+ passed, 0 failed/);
  }, 120_000);

  it("exits 0 on SIGTERM and has everything again after a restart on the same data dir", async () => {
    expect(await stop()).toBe(0);
    await start();
    const products = (await lp(["products", "list", "--limit", "100", "--json"])).json() as Array<{ title: string }>;
    expect(products.map((p) => p.title)).toEqual(expect.arrayContaining(fixture.map((p) => p.title)));
    // The same site, at the port the new process listens on.
    const html = await (await fetch(new URL(new URL(site.url).pathname, url))).text();
    expect(html).toContain(site.title);
    expect(await stop()).toBe(0);
  }, 60_000);
});
