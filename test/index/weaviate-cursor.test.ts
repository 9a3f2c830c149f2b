/**
 * scanPages (src/index/weaviate/cursor.ts) against a real Weaviate server: every object exactly
 * once whatever the page size (including a size that divides the count, where only an empty
 * page ends the pass), in full pages but the last, vectors when asked, and an abort.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import type { Collection, WeaviateClient } from "weaviate-client";
import { configure } from "weaviate-client";
import { connectWeaviate } from "../../src/index/weaviate/connect.js";
import { scanPages } from "../../src/index/weaviate/cursor.js";
import { startWeaviate, weaviateSkipReason } from "../harness/weaviate.js";

const skip = weaviateSkipReason();
const serverReady = skip ? undefined : startWeaviate();
after(async () => {
  await (await serverReady?.catch(() => undefined))?.stop();
});

const COUNT = 24;
const DIMS = 4;

describe("weaviate scanPages", { skip }, () => {
  let client: WeaviateClient;
  let things: Collection<undefined, string, undefined>;

  before(async () => {
    const server = await serverReady!;
    client = await connectWeaviate({ httpUrl: server.httpUrl, grpcUrl: server.grpcUrl });
    const name = `Cursor_${randomBytes(4).toString("hex")}`;
    await client.collections.create({
      name,
      vectorizers: configure.vectors.selfProvided({ vectorIndexConfig: configure.vectorIndex.flat() }),
      properties: [
        { name: "n", dataType: "int" },
        { name: "label", dataType: "text" },
      ],
    });
    things = client.collections.use(name) as Collection<undefined, string, undefined>;
    const res = await things.data.insertMany(
      Array.from({ length: COUNT }, (_, n) => ({ properties: { n, label: `thing ${n}` }, vectors: [n, 1, 2, 3] })),
    );
    assert.equal(res.hasErrors, false);
  });

  after(async () => {
    await client?.close();
  });

  for (const pageSize of [5, 6, 24, 1000]) {
    it(`reads every object once in pages of ${pageSize}`, async () => {
      const seen: number[] = [];
      const sizes: number[] = [];
      for await (const page of scanPages(things, { returnProperties: ["n"], pageSize })) {
        sizes.push(page.length);
        for (const o of page) {
          seen.push(Number((o.properties as Record<string, unknown>).n));
          assert.equal((o.properties as Record<string, unknown>).label, undefined, "only the asked properties");
        }
      }
      assert.deepEqual(
        seen.sort((a, b) => a - b),
        Array.from({ length: COUNT }, (_, n) => n),
      );
      assert.equal(sizes.length, Math.ceil(COUNT / pageSize), `page sizes ${sizes.join(",")}`);
      assert.ok(sizes.every((s) => s <= pageSize && s > 0));
    });
  }

  it("returns vectors when asked", async () => {
    const vectors = new Map<number, number[]>();
    for await (const page of scanPages(things, { returnProperties: ["n"], includeVector: true, pageSize: 7 })) {
      for (const o of page)
        vectors.set(
          Number((o.properties as Record<string, unknown>).n),
          (o.vectors as Record<string, number[]>).default!,
        );
    }
    assert.equal(vectors.size, COUNT);
    assert.deepEqual(vectors.get(9), [9, 1, 2, 3]);
    assert.equal(vectors.get(0)!.length, DIMS);
  });

  it("stops at once on an aborted signal", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stop here"));
    await assert.rejects(async () => {
      for await (const _ of scanPages(things, { returnProperties: ["n"] }, controller.signal))
        assert.fail("no page after an abort");
    }, /stop here/);
  });
});
