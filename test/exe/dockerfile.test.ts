import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { execForm, readDockerfile } from "./container-root.js";

/** The rules the image keeps (docs/single-executable.md), checked on the Dockerfile's parsed instructions. */
describe("Dockerfile", () => {
  const { instructions, runtime } = readDockerfile();
  const last = (keyword: string) => runtime.filter((i) => i.getKeyword() === keyword).at(-1);

  it("is multi-stage, and every base image is pinned to an exact version or a digest", () => {
    const froms = instructions.filter((i) => i.getKeyword() === "FROM");
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) {
      const image = from.getArguments().find((a) => !a.getValue().startsWith("--"))!.getValue();
      expect(image, "no build argument in FROM: the pin is in the file").not.toContain("$");
      expect(image, "an exact tag (x.y.z) or @sha256").toMatch(/:(\d+\.\d+\.\d+)[^:@]*$|@sha256:[0-9a-f]{64}$/);
    }
    // The runtime stage takes the executable from the build stage.
    expect(runtime.some((i) => i.getKeyword() === "COPY" && /--from=\S+/.test(i.getTextContent()))).toBe(true);
  });

  it("runs as a user other than root", () => {
    const user = last("USER")?.getArgumentsContent()?.trim();
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
  });

  it("starts lp serve on every interface with its data in /data, in exec form", () => {
    const entrypoint = last("ENTRYPOINT")!;
    expect(execForm(entrypoint)).toEqual(["lp", "serve", "--host", "0.0.0.0", "--data-dir", "/data"]);
    expect(last("CMD"), "no CMD: arguments of docker run go after the ENTRYPOINT's").toBeUndefined();
  });

  it("declares /data a volume and exposes 4010", () => {
    expect(execForm(last("VOLUME")!) ?? last("VOLUME")!.getArguments().map((a) => a.getValue())).toEqual(["/data"]);
    expect(last("EXPOSE")!.getArguments().map((a) => a.getValue())).toEqual(["4010"]);
  });

  it("checks health in exec form with lp itself, with no curl or wget", () => {
    const healthcheck = last("HEALTHCHECK")!;
    const command = execForm(healthcheck);
    expect(command).not.toBeNull();
    expect(command![0]).toBe("lp");
    expect(command!.join(" ")).toContain("/healthz");
    expect(command!.join(" ")).not.toMatch(/curl|wget/);
  });

  it("has a .dockerignore that keeps this machine's builds and dependencies out of the context", () => {
    const url = new URL("../../.dockerignore", import.meta.url);
    expect(existsSync(url)).toBe(true);
    const lines = readFileSync(url, "utf8").split("\n").map((l) => l.trim());
    expect(lines).toEqual(expect.arrayContaining([".git", "**/node_modules", "**/dist", "build"]));
  });
});
