import { trimEndChars } from "../trim.js";
import { enforceContentRule, holdToSinglePlace, stripForbiddenSections } from "./content-check.js";
import { pageContentSchema, type PageContent, type Section } from "./content.js";
import type { GenerationInput, GenerationResult, Generator, Warning } from "./generation-input.js";
import { buildPageMessages } from "./openai-prompt.js";
import { generateTemplateContent } from "./template-generator.js";

/** How to reach an OpenAI-compatible chat-completions endpoint. */
export interface OpenAIGeneratorOptions {
  /** E.g. `https://api.openai.com/v1` or a local server's `/v1`. */
  baseUrl: string;
  /** Sent as a bearer token; may be empty for local servers that need none. */
  apiKey: string;
  model: string;
  /** Injected so tests and hosts control the network. */
  fetch: typeof globalThis.fetch;
  /** Whole-request budget, body included. */
  timeoutMs?: number;
  /** Most bytes of the endpoint's answer read before the request is abandoned ({@link DEFAULT_AI_MAX_RESPONSE_BYTES}). */
  maxResponseBytes?: number;
  temperature?: number;
}

/** A chat completion is a few kilobytes; 2 MiB leaves room for any honest answer and bounds a hostile one. */
export const DEFAULT_AI_MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

/** A failure whose message is safe to show in a job warning. */
class AiFailure extends Error {}

/**
 * A generator backed by any OpenAI-compatible chat-completions endpoint. It never fails a job:
 * on any problem (network, status, timeout, unparsable or invalid answer) it returns the template
 * generator's page with an `ai_fallback` warning saying why.
 */
export function createOpenAIGenerator(options: OpenAIGeneratorOptions): Generator {
  const { timeoutMs = 20_000 } = options;
  return {
    name: "openai",
    async generate(input: GenerationInput): Promise<GenerationResult> {
      try {
        const answer = await requestContent(options, timeoutMs, input);
        // The model was told the content rule; its answer is still checked against it.
        const checked = enforceContentRule(bindToInput(answer.content, input), input);
        const single = holdToSinglePlace(checked.content, input);
        return { content: single.content, warnings: [...answer.warnings, ...checked.warnings, ...single.warnings] };
      } catch (error) {
        const reason = error instanceof AiFailure ? error.message : `unexpected error: ${describe(error)}`;
        const fallback = generateTemplateContent(input);
        return {
          content: fallback.content,
          warnings: [
            { code: "ai_fallback", message: `AI generation failed (${reason}); the page was written by the template generator.` },
            ...fallback.warnings,
          ],
        };
      }
    },
  };
}

async function requestContent(options: OpenAIGeneratorOptions, timeoutMs: number, input: GenerationInput): Promise<{ content: PageContent; warnings: Warning[] }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    let response: Response;
    let body: string;
    try {
      response = await options.fetch(`${trimEndChars(options.baseUrl, "/")}/chat/completions`, {
        method: "POST",
        headers,
        signal: controller.signal,
        body: JSON.stringify({
          model: options.model,
          messages: buildPageMessages(input),
          response_format: { type: "json_object" },
          temperature: options.temperature ?? 0.7,
        }),
      });
      body = await readCapped(response, options.maxResponseBytes ?? DEFAULT_AI_MAX_RESPONSE_BYTES, controller);
    } catch (error) {
      if (error instanceof AiFailure) throw error;
      throw new AiFailure(controller.signal.aborted ? `no answer within ${timeoutMs} ms` : `request failed: ${describe(error)}`);
    }
    if (!response.ok) throw new AiFailure(`HTTP ${response.status} from the AI endpoint`);
    return parseAnswer(body);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The answer's text, read chunk by chunk up to `cap` bytes. Past the cap (or a declared length over it) the
 * request is aborted and the rest never read, so what the endpoint sends costs at most the cap in memory.
 */
async function readCapped(response: Response, cap: number, controller: AbortController): Promise<string> {
  const tooLarge = () => {
    controller.abort();
    return new AiFailure(`the answer was too large: over ${cap} bytes`);
  };
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > cap) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > cap) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size).toString("utf8");
}

/** Digs the message out of a chat-completions body and validates it as page content. */
function parseAnswer(body: string): { content: PageContent; warnings: Warning[] } {
  let completion: unknown;
  try {
    completion = JSON.parse(body);
  } catch {
    throw new AiFailure("the endpoint's response is not JSON");
  }
  const message = (completion as { choices?: { message?: { content?: unknown } }[] })?.choices?.[0]?.message?.content;
  if (typeof message !== "string") throw new AiFailure("the response has no choices[0].message.content");
  let answer: unknown;
  try {
    // Some models wrap JSON in a Markdown fence even when asked for a JSON object.
    answer = JSON.parse(withoutFence(message));
  } catch {
    throw new AiFailure("the model's answer is not valid JSON");
  }
  const stripped = stripForbiddenSections(answer);
  const parsed = pageContentSchema.safeParse(stripped.answer);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 3).map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`);
    throw new AiFailure(`the model's answer does not match the page content schema: ${issues.join("; ")}`);
  }
  return { content: parsed.data, warnings: stripped.warnings };
}

/**
 * Keeps the answer to facts the model cannot know: images are limited to the product's own URLs
 * (a made-up URL would be an external request on the page), and the language is the one asked for.
 */
function bindToInput(content: PageContent, input: GenerationInput): PageContent {
  const allowed = input.product.images.map((image) => image.url);
  const sections = content.sections.flatMap((section): Section[] => {
    if (section.type === "hero") {
      return [{ ...section, image_url: section.image_url && allowed.includes(section.image_url) ? section.image_url : (allowed[0] ?? null) }];
    }
    if (section.type === "gallery") {
      const images = section.images.filter((image) => allowed.includes(image.url));
      return images.length ? [{ ...section, images }] : [];
    }
    return [section];
  });
  const language = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/.test(input.language) ? input.language : content.language;
  return { ...content, language, sections: sections.length ? sections : content.sections };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The answer without a Markdown fence around it (a loop, not a `\s*```$` pattern, which is quadratic on long white space). */
function withoutFence(message: string): string {
  let text = message.trim().replace(/^```(?:json)?/i, "");
  if (text.endsWith("```")) text = text.slice(0, -3);
  return text.trim();
}
