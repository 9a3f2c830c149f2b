/**
 * Fault: one node of a 3-node Weaviate cluster dies under load (docs/RELIABILITY.md, "Faults").
 *
 * Expected behaviour, written before the test:
 * - The cluster is three processes of the same Weaviate binary on loopback (one Raft cluster),
 *   the posts collection has replication factor 3 (WEAVIATE_REPLICATION_FACTOR=3) and the
 *   service reads and writes at WEAVIATE_CONSISTENCY=QUORUM, talking to node1 only.
 * - node3 is SIGKILLed while clients search over REST and gRPC: every search keeps succeeding
 *   (2 of 3 replicas are a quorum), and `threadsight ingest` of new posts still succeeds.
 * - node3 comes back on the same data and ports and catches up: the posts written while it
 *   was down become readable from node3's own replica (REST node_name=node3: that replica alone),
 *   through async replication (enabled on the collection whenever the factor is > 1) without
 *   any read having to repair them.
 * - The node the service talks to is not killed here: weaviate-client takes one host, so
 *   surviving the loss of that node needs a load balancer in front of the nodes (README,
 *   "Running on several machines").
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { WeaviateClient } from "weaviate-client";
import weaviate from "weaviate-client";
import { postUuid } from "../../src/index/weaviate/schema.js";
import { CORPORA, corporaSkip, runIngest, seedSample } from "../harness/seed.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";
import type { WeaviateCluster } from "../harness/weaviate.js";
import { localWeaviateSkipReason, startWeaviateCluster, waitClusterSize } from "../harness/weaviate.js";
import { startSearchLoad, tally } from "./search-load.js";

/**
 * The search load is closed-loop, so its rate follows the machine's speed (over 1,000 calls a
 * minute with the ONNX encoder): the key's rate is raised past it, because what these tests
 * judge is the index under a fault, not the limits (tested in test/limits/).
 */
const UNMETERED = { ratePerMinute: 1_000_000 };

/** Ingest checkpoints live in the data dir: a fresh one per run, so no other suite's progress is resumed. */
const ingestDir = mkdtempSync(path.join(os.tmpdir(), "threadsight-fault-ingest-"));
process.once("exit", () => rmSync(ingestDir, { recursive: true, force: true }));

const skip = localWeaviateSkipReason() ?? corporaSkip();

/** How long node3 may take to catch up after it returns, ms. */
const CATCH_UP_BOUND_MS = 90_000;
/** How a search caught by the death may end: the service's deadline or unavailable answers. */
const CLEAN_FAILURES = new Set(["DEADLINE_EXCEEDED", "UNAVAILABLE", "503", "504"]);
/** ...and by when: the service's 10 s request timeout (REST) plus a margin, below the load's own give-up. */
const EARLY_BOUND_MS = 12_000;

/** GET one object from one node's own replica; true when that replica holds it. */
async function onNode(httpUrl: string, collection: string, uuid: string, node: string): Promise<boolean> {
  const res = await fetch(`${httpUrl}/v1/objects/${collection}/${uuid}?node_name=${node}`, {
    signal: AbortSignal.timeout(5_000),
  });
  if (res.status === 404) return false;
  if (!res.ok) throw new Error(`GET object on ${node}: ${res.status} ${await res.text()}`);
  return true;
}

/**
 * Polls GET /v1/nodes on `httpUrl` until it lists the cluster without `node`, or with `node` not
 * HEALTHY; throws after `boundMs`. Only an answer that lists nodes counts: for the first seconds
 * after a SIGKILL node1 answers with an error and no list (5.3 s in a probe run), and taking that
 * for "gone" started the steady-state clock while searches could still wait on the dead node.
 */
async function waitNodeGone(httpUrl: string, node: string, boundMs: number): Promise<void> {
  const until = Date.now() + boundMs;
  let last = "";
  while (Date.now() < until) {
    try {
      const res = await fetch(`${httpUrl}/v1/nodes`, { signal: AbortSignal.timeout(5_000) });
      const body = (await res.json()) as { nodes?: { name: string; status: string }[] };
      if (!Array.isArray(body.nodes)) {
        last = `HTTP ${res.status} ${JSON.stringify(body).slice(0, 200)}`;
      } else {
        const status = body.nodes.find((n) => n.name === node)?.status;
        last = String(status);
        if (status !== "HEALTHY") return;
      }
    } catch (err) {
      last = String(err);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${node} still reported ${last} by ${httpUrl} after ${boundMs} ms`);
}

describe("3-node Weaviate cluster: a replica dies under load", { skip, timeout: 300_000 }, () => {
  let cluster: WeaviateCluster;
  let svc: RunningService;
  let key: string;
  let client: WeaviateClient;
  const collection = `Cluster${Date.now()}`;
  let env: Record<string, string>;
  before(async () => {
    cluster = await startWeaviateCluster(3);
    const node1 = cluster.nodes[0]!;
    env = {
      WEAVIATE_URL: node1.httpUrl,
      WEAVIATE_GRPC_URL: node1.grpcUrl,
      WEAVIATE_COLLECTION: collection,
      WEAVIATE_REPLICATION_FACTOR: "3",
      WEAVIATE_CONSISTENCY: "QUORUM",
    };
    await seedSample({ ...env, THREADSIGHT_DATA_DIR: ingestDir }, [
      { file: "reddit_top2013/raw_csv/startups.csv", limit: 80 },
    ]);
    svc = await startService({ env });
    key = await svc.createKey("enterprise", "fault load", UNMETERED);
    client = await weaviate.connectToCustom({
      httpHost: "127.0.0.1",
      httpPort: node1.httpPort,
      grpcHost: "127.0.0.1",
      grpcPort: node1.grpcPort,
    });
  });
  after(async () => {
    await client?.close();
    await svc?.stop();
    await cluster?.stop();
  });

  test("the collection is replicated on all three nodes", async () => {
    const config = await client.collections.use(collection).config.get();
    assert.equal(config.replication.factor, 3);
    assert.equal(config.replication.asyncEnabled, true);
    const some = await client.collections.use(collection).query.fetchObjects({ limit: 5 });
    assert.equal(some.objects.length, 5);
    for (const node of cluster.nodes) {
      for (const o of some.objects)
        assert.ok(await onNode(node.httpUrl, collection, o.uuid, node.name), `${o.uuid} on ${node.name}`);
    }
  });

  test("node3 SIGKILLed: searches keep succeeding at QUORUM, ingest still writes; it returns and catches up", async (t) => {
    const [node1, , node3] = cluster.nodes as [(typeof cluster.nodes)[0], unknown, (typeof cluster.nodes)[0]];
    const load = startSearchLoad({ url: svc.url, address: svc.address, key, clients: 4 });
    let outcomes;
    let written: string[];
    let goneAt = Number.POSITIVE_INFINITY;
    try {
      await load.waitForSuccesses(10);
      await node3.kill();
      const killedAt = Date.now();
      // Requests issued before the survivors notice the death (gossip failure detection, a Raft
      // re-election if node3 led) can wait on the dead node until the client's 30 s timeout; an
      // ingest caught in that window fails cleanly and resumes on a rerun. The claim tested here
      // is the steady state with a node down, so wait until node1 reports node3 gone.
      await waitNodeGone(node1.httpUrl, node3.name, 60_000);
      goneAt = Date.now();
      // Posts that only nodes 1 and 2 receive, written by the real CLI while searches run.
      // KNOWN ISSUE (docs/RELIABILITY.md): an ingest started soon after the death can still see one
      // Weaviate request wait out the client's 30 s timeout (seen in clean CI runs, not reproduced
      // alone); it exits 1 cleanly and a rerun resumes from its checkpoint. The claim tested is
      // that writes succeed with a node down, so a timed-out attempt is rerun (at most twice).
      const args = [path.join(CORPORA, "hackernews_2015_2016/hacker_news.csv"), "--limit", "60"];
      let ingest = await runIngest(args, { ...env, THREADSIGHT_DATA_DIR: ingestDir });
      for (let attempt = 2; attempt <= 3 && ingest.code === 1 && /timed out/.test(ingest.stderr); attempt++) {
        t.diagnostic(`ingest attempt ${attempt - 1} timed out against the degraded cluster; resuming`);
        ingest = await runIngest(args, { ...env, THREADSIGHT_DATA_DIR: ingestDir });
      }
      assert.ok(
        ingest.code === 0 || ingest.code === 3,
        `ingest with a node down exited ${ingest.code}: ${ingest.stderr.slice(-1500)}`,
      );
      // Twenty searches begun after the ingest's writes, so they run against the degraded cluster
      // with the new posts in it (and `during` below holds by construction).
      await load.waitForSuccesses(20);
      const hn = await client.collections
        .use(collection)
        .withConsistency("QUORUM")
        .query.fetchObjects({
          filters: client.collections.use(collection).filter.byProperty("source").equal("hackernews"),
          limit: 100,
          returnProperties: ["postId"],
        });
      written = hn.objects.map((o) => String(o.properties.postId));
      assert.ok(written.length >= 40, `posts written while node3 was down: ${written.length}`);
      outcomes = await load.stop();
      const during = outcomes.filter((o) => o.startedAt >= killedAt);
      assert.ok(during.length >= 20, `calls made while node3 was down: ${during.length}`);
    } finally {
      outcomes ??= await load.stop();
    }
    // Once the survivors know node3 is gone, every search succeeds. A call that reached Weaviate
    // before that may wait on the dead replica (the known issue above, seen for searches too in a
    // clean-clone CI run: the four calls in flight at the kill): it must still end cleanly,
    // answered by the service's deadline handling, never hang or break the connection.
    const failed = outcomes.filter((o) => o.status !== 200);
    const settled = failed.filter((o) => o.startedAt >= goneAt);
    assert.deepEqual(
      settled,
      [],
      `every search after node3 was seen gone succeeds: ${JSON.stringify(tally(outcomes))}`,
    );
    const early = failed.filter((o) => o.startedAt < goneAt);
    for (const o of early) {
      assert.ok(
        CLEAN_FAILURES.has(String(o.status)) && o.elapsedMs <= EARLY_BOUND_MS,
        `a call caught by node3's death ended cleanly within ${EARLY_BOUND_MS} ms: ${JSON.stringify(o)}`,
      );
    }
    if (early.length > 0)
      t.diagnostic(
        `${early.length} call(s) in flight before node3 was seen gone ended at their deadline: ${JSON.stringify(early.map((o) => [o.protocol, o.status, o.elapsedMs]))}`,
      );

    // The new posts are searchable through the service while node3 is still down.
    const found = await fetch(`${svc.url}/api/v1/search/semantic`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ query: "show hn", limit: 10 }),
    });
    assert.equal(found.status, 200);

    await node3.restart();
    await waitClusterSize(node1, 3);
    const uuids = written.map(postUuid);
    const missingAtReturn = (
      await Promise.all(uuids.map((u) => onNode(node3.httpUrl, collection, u, node3.name)))
    ).filter((has) => !has).length;
    const returnedAt = Date.now();
    const deadline = returnedAt + CATCH_UP_BOUND_MS;
    let missing = uuids;
    while (missing.length > 0 && Date.now() < deadline) {
      const has = await Promise.all(missing.map((u) => onNode(node3.httpUrl, collection, u, node3.name)));
      missing = missing.filter((_, i) => !has[i]);
      if (missing.length > 0) await new Promise((r) => setTimeout(r, 1_000));
    }
    t.diagnostic(
      `calls: ${JSON.stringify(tally(outcomes))}; node3 missing ${missingAtReturn}/${uuids.length} on return, caught up in ${Date.now() - returnedAt} ms`,
    );
    assert.deepEqual(
      missing,
      [],
      `node3 caught up on all ${uuids.length} posts written while it was down (${missingAtReturn} missing when it returned)`,
    );
    // And a search after the return still succeeds.
    const after = await fetch(`${svc.url}/api/v1/search/vector`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ query: "startup hiring", limit: 5, start_date: "2010-01-01", end_date: "2019-12-31" }),
    });
    assert.equal(after.status, 200);
  });
});
