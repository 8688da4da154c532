import { describe, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { EndpointsService } from "./endpoints-service.js";
import type { deliveryListSchema, endpointCreateSchema, endpointListSchema, endpointUpdateSchema } from "./schemas.js";

// The server validates a webhook body or query once, against the route's declared schema, and hands the
// core that output; the core takes it as typed and does not parse it again.
describe("the webhook endpoints service takes the request schemas' outputs", () => {
  it("create, update, list and deliveries (checked by the type checker)", () => {
    expectTypeOf<Parameters<EndpointsService["create"]>[1]>().toEqualTypeOf<z.output<typeof endpointCreateSchema>>();
    expectTypeOf<Parameters<EndpointsService["update"]>[2]>().toEqualTypeOf<z.output<typeof endpointUpdateSchema>>();
    expectTypeOf<Parameters<EndpointsService["list"]>[1]>().toEqualTypeOf<z.output<typeof endpointListSchema>>();
    expectTypeOf<Parameters<EndpointsService["deliveries"]>[2]>().toEqualTypeOf<z.output<typeof deliveryListSchema>>();
  });
});
