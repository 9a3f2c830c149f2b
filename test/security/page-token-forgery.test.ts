/**
 * Page tokens are signed: a token written by hand for any offset (the old unsigned form) is a
 * 400 INVALID_ARGUMENT naming page_token on REST, and INVALID_ARGUMENT on gRPC; the generated
 * signing secret lives under the data directory.
 */
import assert from "node:assert/strict";
import { stat } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { SearchService } from "../../gen/threadsight/v1/search_pb.js";
import { requestFingerprint } from "../../src/core/page-token.js";
import { PAGE_TOKEN_SECRET_FILE } from "../../src/main.js";
import { rest } from "../api/rest-client.js";
import { callUnaryWithMetadata, createGrpcJsClient } from "../grpc/grpc-js-client.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";

/** What a client could write before tokens were signed: offset 500 of the query "crm". */
const FORGED = Buffer.from(
  JSON.stringify({ o: 500, f: requestFingerprint(["vector", "crm", [], null, null]) }),
).toString("base64url");

describe("forged page tokens", () => {
  let svc: RunningService;
  let key: string;
  before(async () => {
    svc = await startService();
    key = await svc.createKey("pro");
  });
  after(async () => svc?.stop());

  test("REST: 400 INVALID_ARGUMENT naming page_token", async () => {
    const res = await rest(svc.url, "/api/v1/search/vector", {
      key,
      body: { query: "crm", limit: 10, page_token: FORGED },
    });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error.reason, "INVALID_ARGUMENT");
    assert.match(res.body.error.message, /page_token is not a token this service issued/);
  });

  test("gRPC: INVALID_ARGUMENT naming page_token", async () => {
    const client = createGrpcJsClient(SearchService, svc.address);
    try {
      const out = await callUnaryWithMetadata(
        client,
        SearchService.method.vectorSearch,
        { query: "crm", limit: 10, pageToken: FORGED },
        { authorization: `Bearer ${key}` },
      );
      assert.equal(out.error?.code, grpc.status.INVALID_ARGUMENT);
      assert.match(out.error!.details, /page_token/);
    } finally {
      client.close();
    }
  });

  test("the generated signing secret is kept in the data directory, owner-only", async () => {
    assert.equal((await stat(path.join(svc.dataDir, PAGE_TOKEN_SECRET_FILE))).mode & 0o777, 0o600);
  });
});
