import { describe, expect, it } from "vitest";
import { redisAvailable, redisSkipReason } from "../../core/src/testing/redis-server.js";
import { pollUntil } from "../crash/crash-api.js";
import { useCluster } from "./use-cluster.js";

if (!redisAvailable) console.warn(redisSkipReason("the cluster redis-restart test"));

/**
 * redis-server SIGKILLed under a cluster, then started again on its AOF: while it is down every process
 * answers 503 `service_unavailable` with `Retry-After` and stays up; once it is back the cluster serves
 * again by itself (no process restarted), with every acknowledged write intact and background work going.
 */
describe.skipIf(!redisAvailable).each([2, 3])("redis-server killed and restarted under %i processes", (processes) => {
  const cluster = useCluster({ processes });

  it("answers 503 service_unavailable while Redis is down, then recovers by itself with acknowledged writes intact", { timeout: 90_000 }, async () => {
    const acknowledged = new Map<string, string>();
    for (let i = 0; i < processes * 3; i++) {
      const r = await cluster.on(i % processes, "POST", "products", { body: { title: `Before the outage ${i}`, price: 1 + i, product_type: "physical" } });
      expect(r.status).toBe(201);
      acknowledged.set(r.json.data.id, r.text);
    }
    const pids = cluster.nodes.map((n) => n.proc.child.pid);
    const [someId] = acknowledged.keys();

    await cluster.redis.stop({ hard: true });
    for (const node of cluster.nodes) {
      for (const [method, path, body] of [
        ["GET", `products/${someId}`, undefined],
        ["GET", "products", undefined],
        ["POST", "products", { title: "During the outage", price: 1, product_type: "service" }],
      ] as const) {
        const r = await node.api.call(method, path, { body });
        expect(r.status, `${method} ${path} on process ${node.index}: ${r.text}`).toBe(503);
        expect(r.json.error.code).toBe("service_unavailable");
        // One cause, one message, whichever part of the process met the outage first.
        expect(r.json.error.message).toBe("The data store is unavailable right now; retry in a moment.");
        expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
      }
      expect(node.proc.child.exitCode, `process ${node.index} exited while Redis was down: ${node.proc.stderr}`).toBeNull();
    }

    await cluster.redis.restart();
    for (const node of cluster.nodes) {
      await pollUntil(`process ${node.index} serving again`, 20_000, async () => {
        const r = await node.api.call("GET", `products/${someId}`);
        return r.status === 200 ? true : undefined;
      });
    }
    expect(cluster.nodes.map((n) => n.proc.child.pid)).toEqual(pids);
    for (const node of cluster.nodes) expect(node.proc.child.exitCode).toBeNull();

    // Every acknowledged write is back, the same on every process, and listed.
    for (const node of cluster.nodes) {
      for (const [id, text] of acknowledged) {
        const r = await node.api.call("GET", `products/${id}`);
        expect(r.status).toBe(200);
        expect(cluster.unorigin(r.text)).toBe(cluster.unorigin(text));
      }
      const list = await node.api.call("GET", "products?per_page=100");
      expect(list.json.data.map((p: { id: string }) => p.id)).toEqual(expect.arrayContaining([...acknowledged.keys()]));
    }

    // Every part of every process said once that Redis was gone and once that it is back, in one line each.
    for (const node of cluster.nodes) {
      const logged = () => node.proc.stderr.slice(node.proc.stderr.search(/^Ready at /m)).split("\n").slice(1).filter((line) => line !== "");
      const partOf = (line: string) => /^\[lp\] (redis \([\w-]+\)|[\w ]+?):? (at |Redis |connection )/.exec(line)?.[1];
      const outages = () => logged().filter((line) => /unreachable|; retrying$/.test(line));
      const restored = () => logged().filter((line) => /connection restored|reachable again/.test(line));
      await pollUntil(`process ${node.index}: a recovery line for each part that reported the outage`, 20_000, async () =>
        outages().every((line) => restored().some((back) => partOf(back) === partOf(line))) ? true : undefined,
      );
      const parts = outages().map(partOf);
      expect(parts, logged().join("\n")).toEqual(expect.arrayContaining(["redis (data)", "background worker", "webhook worker"]));
      expect(new Set(parts).size, `one outage line per part: ${outages().join("\n")}`).toBe(parts.length);
      expect(logged().filter((line) => !line.startsWith("[lp] ")), "lines that are not one-line reports (stack traces)").toEqual([]);
    }

    // Writes and background work go on, on every process.
    for (const node of cluster.nodes) {
      const made = await node.api.call("POST", "pages", { body: { product: { title: `After the outage ${node.index}`, description: "Back.", price: 2, product_type: "service" } } });
      expect(made.status, made.text).toBe(202);
      const job = await pollUntil(`job on process ${node.index} after the restart`, 20_000, async () => {
        const r = await node.api.call("GET", `pages/jobs/${made.json.data.job_id}`);
        return r.status === 200 && r.json.data.status !== "processing" ? r.json.data : undefined;
      });
      expect(job.status).toBe("completed");
    }
  });
});
