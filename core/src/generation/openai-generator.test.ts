import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { PageContent } from "./content.js";
import type { GenerationInput } from "./generation-input.js";
import { createOpenAIGenerator } from "./openai-generator.js";
import { generateTemplateContent } from "./template-generator.js";

/** A local chat-completions endpoint whose answer each test sets. */
type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
let handler: Handler;
let received: { method?: string; url?: string; headers: IncomingMessage["headers"]; body: any }[] = [];
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      received.push({ method: req.method, url: req.url, headers: req.headers, body: JSON.parse(body) });
      handler(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  received = [];
});

const completion = (content: string) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
});
const reply = (status: number, body: unknown) => (_req: IncomingMessage, _body: string, res: ServerResponse) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
};

const input: GenerationInput = {
  product: {
    title: "Trail Runner Socks",
    description: "Merino socks for long runs.",
    price: 18,
    original_price: null,
    delivery_price: 3,
    product_type: "physical",
    images: [{ url: "https://img.example.com/socks.jpg", media_type: "image/jpeg" }],
  },
  currency: "EUR",
  language: "fr",
  marketing_angle: "for ultra runners",
};

const generator = (timeoutMs?: number) =>
  createOpenAIGenerator({ baseUrl, apiKey: "sk-test", model: "test-model", fetch: globalThis.fetch, timeoutMs });

const template = generateTemplateContent(input);

describe("createOpenAIGenerator against a real HTTP endpoint", () => {
  it("uses a valid answer and sends a chat-completions request", async () => {
    const answer: PageContent = structuredClone(template.content);
    answer.headline = "Des chaussettes pour l’ultra";
    const hero = answer.sections.find((s) => s.type === "hero")!;
    // A made-up image URL must not reach the page.
    if (hero.type === "hero") hero.image_url = "https://hallucinated.example/x.png";
    handler = reply(200, completion(JSON.stringify(answer)));

    const result = await generator().generate(input);

    expect(result.warnings).toEqual([]);
    expect(result.content.headline).toBe("Des chaussettes pour l’ultra");
    const resultHero = result.content.sections.find((s) => s.type === "hero");
    expect(resultHero?.type === "hero" && resultHero.image_url).toBe("https://img.example.com/socks.jpg");
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request!.method).toBe("POST");
    expect(request!.url).toBe("/v1/chat/completions");
    expect(request!.headers.authorization).toBe("Bearer sk-test");
    expect(request!.body.model).toBe("test-model");
    expect(request!.body.response_format).toEqual({ type: "json_object" });
    expect(typeof request!.body.temperature).toBe("number");
    expect(request!.body.messages.map((m: { role: string }) => m.role)).toEqual(["system", "user"]);
    expect(request!.body.messages[1].content).toContain("Trail Runner Socks");
    expect(request!.body.messages[1].content).toContain("for ultra runners");
  });

  it("holds the answer to the content rule: invented reviews, guarantees and policies are dropped with warnings", async () => {
    const answer = {
      language: "fr",
      headline: "Trail Runner Socks : 18,00 € seulement",
      subheadline: "Livraison en 24h, satisfait ou remboursé.",
      sections: [
        { type: "hero", id: "hero", headline: "Trail Runner Socks", subheadline: "Pour l’ultra, à 18,00 €.", cta_label: "Commander", image_url: null },
        {
          type: "benefits",
          id: "benefits",
          title: "L’essentiel",
          items: [
            { title: "Mérinos", text: "Des chaussettes en mérinos pour les longues sorties." },
            { title: "Retours gratuits", text: "Renvoyez-les sous 30 jours." },
          ],
        },
        { type: "social_proof", id: "social-proof", title: "Avis", items: [{ quote: "Top", author: "Marie D.", role: "Cliente vérifiée" }] },
        { type: "faq", id: "faq", title: "FAQ", items: [{ question: "Et si je change d’avis ?", answer: "Remboursement sous 14 jours." }] },
        { type: "offer", id: "offer", title: "L’offre", text: "Seulement 18,00 € (livraison 3,00 €).", cta_label: "Commander", guarantee: "Garantie 2 ans" },
        { type: "checkout", id: "checkout", title: "Commande", submit_label: "Valider", note: "Plus que 3 paires en stock !" },
      ],
    };
    handler = reply(200, completion(JSON.stringify(answer)));
    const result = await generator().generate(input);
    const text = JSON.stringify(result.content);
    for (const phrase of ["Avis", "Marie D.", "remboursé", "Remboursement", "Garantie", "Retours", "24h", "en stock", "18,00", "3,00"]) {
      expect(text, phrase).not.toContain(phrase);
    }
    // Amounts the model wrote out became tokens, and copy stating them went: the price block says them once.
    // Its offer was only a price, so it went too; its true sentences stay.
    expect(result.content.sections.map((s) => s.type)).toEqual(["hero", "benefits", "checkout"]);
    expect(text).not.toMatch(/\{(price|original_price|saving|saving_percent|delivery_price)\}/);
    expect(result.content.headline).toBe("Trail Runner Socks");
    const template = generateTemplateContent(input).content;
    expect(result.content.sections[0]!.type === "hero" && result.content.sections[0]!.subheadline).toBe(template.subheadline);
    expect(text).toContain("Des chaussettes en mérinos pour les longues sorties.");
    const codes = result.warnings.map((w) => w.code);
    expect(codes.every((code) => code === "content_rule")).toBe(true);
    expect(result.warnings.map((w) => w.message).join("\n")).toMatch(/social_proof[\s\S]*guarantee[\s\S]*returns[\s\S]*restated the price/);
  });

  it("lets the page repeat a policy the merchant's description states", async () => {
    const withReturns = { ...input, product: { ...input.product, description: "Merino socks. Free returns within 30 days." } };
    const answer = structuredClone(generateTemplateContent(withReturns).content);
    answer.sections.splice(1, 0, { type: "faq", id: "faq", title: "Questions", items: [{ question: "Retours ?", answer: "Retours gratuits sous 30 jours." }] });
    handler = reply(200, completion(JSON.stringify(answer)));
    const result = await generator().generate(withReturns);
    expect(result.warnings).toEqual([]);
    expect(JSON.stringify(result.content)).toContain("Retours gratuits sous 30 jours.");
  });

  it("falls back to the template on a non-JSON answer", async () => {
    handler = reply(200, completion("Sure! Here is your landing page: {headline: oops"));
    const result = await generator().generate(input);
    expect(result.content).toEqual(template.content);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]!.code).toBe("ai_fallback");
    expect(result.warnings[0]!.message).toContain("not valid JSON");
  });

  it("falls back to the template on an answer that does not match the schema", async () => {
    handler = reply(200, completion(JSON.stringify({ headline: "Only a headline", sections: [{ type: "video" }] })));
    const result = await generator().generate(input);
    expect(result.content).toEqual(template.content);
    expect(result.warnings.map((w) => w.code)).toEqual(["ai_fallback"]);
    expect(result.warnings[0]!.message).toContain("does not match the page content schema");
  });

  it("falls back to the template on a 500", async () => {
    handler = reply(500, { error: { message: "upstream overloaded" } });
    const result = await generator().generate(input);
    expect(result.content).toEqual(template.content);
    expect(result.warnings.map((w) => w.code)).toEqual(["ai_fallback"]);
    expect(result.warnings[0]!.message).toContain("HTTP 500");
  });

  it("falls back to the template when the endpoint never answers", async () => {
    handler = () => {
      /* never respond */
    };
    const result = await generator(200).generate(input);
    expect(result.content).toEqual(template.content);
    expect(result.warnings.map((w) => w.code)).toEqual(["ai_fallback"]);
    expect(result.warnings[0]!.message).toContain("no answer within 200 ms");
  });

  it("falls back when the response body is not a chat completion", async () => {
    handler = reply(200, "<html>gateway</html>");
    const result = await generator().generate(input);
    expect(result.content).toEqual(template.content);
    expect(result.warnings[0]!.message).toContain("not JSON");
  });

  it("falls back when the endpoint cannot be reached, keeping the template's own warnings", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = createOpenAIGenerator({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: "", model: "m", fetch: globalThis.fetch });
    const result = await unreachable.generate({ ...input, language: "ja" });
    expect(result.warnings.map((w) => w.code)).toEqual(["ai_fallback", "language_fallback"]);
    expect(result.warnings[0]!.message).toContain("request failed");
    expect(result.content.language).toBe("en");
  });
});
