import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GenerationInput } from "./generation-input.js";
import { createOpenAIGenerator, DEFAULT_AI_MAX_RESPONSE_BYTES } from "./openai-generator.js";
import { generateTemplateContent } from "./template-generator.js";

const MiB = 1024 * 1024;
/** What the hostile stand-in offers: far more than any process should hold. */
const OFFERED = 300 * MiB;

/** A chat-completions stand-in that answers 300 MB of JSON-looking bytes, and counts how many it got to send. */
let sent = 0;
let declareLength = false;
let server: Server;
let baseUrl: string;

function flood(res: ServerResponse) {
  const chunk = Buffer.alloc(MiB, 0x61); // one buffer, reused: the stand-in itself holds 1 MiB
  res.writeHead(200, { "content-type": "application/json", ...(declareLength ? { "content-length": String(OFFERED) } : {}) });
  res.write('{"choices":[{"message":{"content":"');
  const pump = () => {
    while (sent < OFFERED && !res.destroyed) {
      sent += chunk.byteLength;
      if (!res.write(chunk)) return void res.once("drain", pump);
    }
    if (!res.destroyed) res.end();
  };
  res.on("close", () => res.removeAllListeners("drain"));
  pump();
}

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => flood(res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const input: GenerationInput = {
  product: { title: "Flood Lamp", description: "Brass.", price: 40, original_price: null, delivery_price: null, product_type: "physical", images: [] },
  currency: "USD",
  language: "en",
};

/** Peak resident set of this test process so far, in bytes (Linux reports kilobytes). */
const peakRss = () => process.resourceUsage().maxRSS * 1024;

describe("an AI endpoint answering hundreds of megabytes", () => {
  it.each([
    ["streamed without a length", false],
    ["declared in Content-Length", true],
  ])("is read up to the cap, abandoned, and the page falls back to the template (%s)", async (_what, declared) => {
    sent = 0;
    declareLength = declared;
    const before = peakRss();
    const generator = createOpenAIGenerator({ baseUrl, apiKey: "", model: "m", fetch: globalThis.fetch, timeoutMs: 120_000 });
    const result = await generator.generate(input);

    const [warning] = result.warnings;
    expect(warning?.code).toBe("ai_fallback");
    expect(warning?.message).toContain(`the answer was too large: over ${DEFAULT_AI_MAX_RESPONSE_BYTES} bytes`);
    expect(result.content).toEqual(generateTemplateContent(input).content);
    // The request was abandoned near the cap: the stand-in never got to send what it offered (socket
    // buffers on both sides account for the slack).
    expect(sent).toBeLessThan(64 * MiB);
    // Generous bound on memory (a check of size, not of time): reading it all would add hundreds of MB.
    expect(peakRss() - before).toBeLessThan(50 * MiB);
  }, 150_000);

  it("takes its cap as an option", async () => {
    sent = 0;
    declareLength = false;
    const generator = createOpenAIGenerator({ baseUrl, apiKey: "", model: "m", fetch: globalThis.fetch, maxResponseBytes: 4096 });
    const result = await generator.generate(input);
    expect(result.warnings[0]?.message).toContain("the answer was too large: over 4096 bytes");
  });
});
