import { ALL_EVENT_TYPES, EVENT_TYPES } from "@lp/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../testing/test-app.js";

/** The ten developer-plane operations of the spec. */
const OPERATIONS = [
  "post /v1/developer/webhook-endpoints",
  "get /v1/developer/webhook-endpoints",
  "get /v1/developer/webhook-endpoints/{endpoint_id}",
  "patch /v1/developer/webhook-endpoints/{endpoint_id}",
  "delete /v1/developer/webhook-endpoints/{endpoint_id}",
  "post /v1/developer/webhook-endpoints/{endpoint_id}/verify",
  "post /v1/developer/webhook-endpoints/{endpoint_id}/rotate-secret",
  "post /v1/developer/webhook-endpoints/{endpoint_id}/test",
  "get /v1/developer/webhook-endpoints/{endpoint_id}/deliveries",
  "post /v1/developer/webhook-endpoints/{endpoint_id}/deliveries/{delivery_id}/retry",
];

describe("OpenAPI: webhook endpoints and the event catalogue", () => {
  let t: TestApp;
  let doc: any;
  beforeAll(async () => {
    t = await createTestApp();
    doc = (await t.call("GET", "/v1/openapi.json", { token: null })).json;
  });
  afterAll(async () => {
    await t.close();
  });

  it("documents the ten developer-plane operations with HTTP Basic and the validating schemas", () => {
    for (const op of OPERATIONS) {
      const [method, path] = op.split(" ");
      const operation = doc.paths[path]?.[method];
      expect(operation, op).toBeDefined();
      expect(operation.security, op).toEqual([{ basicAuth: [] }]);
      expect(operation.parameters.some((p: any) => p.name === "Idempotency-Key"), op).toBe(false);
    }
    const create = doc.paths["/v1/developer/webhook-endpoints"].post;
    const body = create.requestBody.content["application/json"].schema;
    expect([...body.required].sort()).toEqual(["events", "url"]);
    expect(body.properties.events.items.enum).toEqual([...EVENT_TYPES]);
    expect(body.properties.concurrency_limit).toMatchObject({ minimum: 1, maximum: 50, default: 4 });
    expect(create.responses["201"].content["application/json"].schema.properties.data.required).toEqual(expect.arrayContaining(["secret", "verification", "circuit"]));
    const deliveries = doc.paths["/v1/developer/webhook-endpoints/{endpoint_id}/deliveries"].get;
    expect(deliveries.parameters.map((p: any) => p.name)).toEqual(["endpoint_id", "cursor", "per_page", "status", "event_type"]);
    expect(Object.keys(doc.paths["/v1/developer/webhook-endpoints/{endpoint_id}/test"].post.responses)).toContain("202");
  });

  it("lists every event type with a schema whose data is the resource as the API returns it", () => {
    expect(Object.keys(doc.webhooks)).toEqual([...ALL_EVENT_TYPES]);
    expect(doc["x-webhook-events"].map((e: any) => [e.type, e.subscribable])).toEqual(ALL_EVENT_TYPES.map((type) => [type, (EVENT_TYPES as readonly string[]).includes(type)]));
    for (const entry of doc["x-webhook-events"]) {
      const name = entry.schema.$ref.replace("#/components/schemas/", "");
      const schema = doc.components.schemas[name];
      expect(schema.properties.type.const, name).toBe(entry.type);
      expect(doc.webhooks[entry.type].post.requestBody.content["application/json"].schema).toEqual(entry.schema);
    }
    const product = doc.components.schemas.ProductCreatedEvent;
    expect(product.required).toEqual(["id", "type", "timestamp", "account_id", "environment", "data"]);
    expect(Object.keys(product.properties.data.properties)).toEqual(expect.arrayContaining(["id", "title", "price", "preview_image_url", "images"]));
    expect(Object.keys(doc.components.schemas.DeploymentFailedEvent.properties.data.properties)).toEqual(expect.arrayContaining(["error_code", "deploy_step"]));
    expect(Object.keys(doc.components.schemas.PageGenerationFailedEvent.properties.data.properties)).toEqual(expect.arrayContaining(["job_id", "error"]));
    expect(doc.components.schemas.WebhookVerificationEvent.properties.data.required).toEqual(["challenge"]);
  });
});
