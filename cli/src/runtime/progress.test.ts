import { describe, expect, it } from "vitest";
import { createFakeIo } from "../testing/fake-io.js";
import { createProgress } from "./progress.js";

describe("progress", () => {
  it("prints one plain line per change when not on a terminal", () => {
    const fake = createFakeIo();
    const progress = createProgress(fake.io);
    for (const step of ["rendering", "rendering", "uploading"]) progress.update(step);
    progress.stop();
    expect(fake.stderr).toBe("rendering\nuploading\n");
  });

  it("redraws one spinner line on a terminal, cut to its width, and clears it", () => {
    const fake = createFakeIo({ tty: true });
    fake.io.stderrColumns = 20;
    const progress = createProgress(fake.io);
    progress.update("generating_images (Drawing the hero)");
    progress.stop();
    expect(fake.stderr).toBe("\r⠋ generating_image…\x1b[K\r\x1b[K");
  });
});
