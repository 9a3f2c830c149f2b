/**
 * Keys never reach the logs. A realistic session at LOG_LEVEL=debug - keys created with the CLI
 * and through the service, used over REST and gRPC, failed attempts with real-looking keys,
 * rotation and revocation - then every captured log line (the service's) and every CLI stream
 * is searched for each secret, its secret part and its stored hash. The one place a secret may
 * appear is the stdout of the command that creates or rotates it: that is how it is handed over.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { SearchService } from "../../gen/threadsight/v1/search_pb.js";
import { hashKey } from "../../src/accounts/key-hash.js";
import { callUnaryWithMetadata, createGrpcJsClient } from "../grpc/grpc-js-client.js";
import { runCli } from "../harness/seed.js";
import { startService } from "../harness/service.js";

const KEY_PATTERN = /ts_live_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}/g;

describe("no key or key hash in any log", () => {
  let dataDir: string;
  after(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  test("a whole key lifecycle at LOG_LEVEL=debug leaves no secret behind", async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-secrets-"));
    const env = { THREADSIGHT_DATA_DIR: dataDir, LOG_LEVEL: "debug" };
    const secrets: string[] = [];
    /** Output that must be clean: all stderr, and stdout of commands that show no new secret. */
    const captured: { label: string; text: string }[] = [];

    const cli = async (args: string[], showsSecret: boolean): Promise<string> => {
      const res = await runCli(args, env);
      assert.equal(res.code, 0, `${args.join(" ")}: ${res.stderr}`);
      captured.push({ label: `stderr of ${args.join(" ")}`, text: res.stderr });
      if (!showsSecret) captured.push({ label: `stdout of ${args.join(" ")}`, text: res.stdout });
      return res.stdout;
    };

    const created = JSON.parse(
      await cli(["keys", "create", "--plan", "pro", "--name", "cli laptop", "--json"], true),
    ) as { id: string; key: string };
    secrets.push(created.key);
    const rotated = JSON.parse(await cli(["keys", "rotate", created.id, "--json"], true)) as {
      id: string;
      key: string;
    };
    secrets.push(rotated.key);
    await cli(["keys", "list", "--json"], false);

    const svc = await startService({ dataDir, env: { LOG_LEVEL: "debug" } });
    try {
      const serviceKey = await svc.createKey("enterprise", "service key");
      secrets.push(serviceKey);
      const wrong =
        `${serviceKey.slice(0, -4)}zzzz` === serviceKey
          ? `${serviceKey.slice(0, -4)}yyyy`
          : `${serviceKey.slice(0, -4)}zzzz`;
      const strangerShaped = "ts_live_ZZZZZZZZZZZZ_abcdefghijklmnopqrstuvwxyz012345";
      secrets.push(wrong, strangerShaped);

      const post = (key: string) =>
        fetch(`${svc.url}/api/v1/search/vector`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ query: "crm", limit: 2 }),
        });
      assert.equal((await post(serviceKey)).status, 200);
      assert.equal((await post(rotated.key)).status, 200);
      assert.equal((await post(created.key)).status, 200, "the rotated-out key works during its grace period");
      assert.equal((await post(wrong)).status, 401);
      assert.equal((await post(strangerShaped)).status, 401);
      assert.equal(
        (await fetch(`${svc.url}/api/v1/usage?key=${encodeURIComponent(wrong)}`, { headers: { "x-api-key": wrong } }))
          .status,
        401,
      );

      const client = createGrpcJsClient(SearchService, svc.address);
      try {
        const ok = await callUnaryWithMetadata(
          client,
          SearchService.method.semanticSearch,
          { query: "crm", limit: 2 },
          { authorization: `Bearer ${serviceKey}` },
        );
        assert.equal(ok.error, undefined, ok.error?.details);
        const bad = await callUnaryWithMetadata(
          client,
          SearchService.method.semanticSearch,
          { query: "crm" },
          { authorization: `Bearer ${wrong}` },
        );
        assert.ok(bad.error);
      } finally {
        client.close();
      }

      const list = await svc.service.keys.listKeys();
      const serviceKeyId = list.find((k) => serviceKey.includes(k.id))!.id;
      const again = await svc.service.keys.rotateKey(serviceKeyId);
      secrets.push(again.key);
      await svc.service.keys.revokeKey(again.info.id);
      assert.equal((await post(again.key)).status, 401, "revoked");
      captured.push({ label: "service logs", text: svc.logs.join("\n") });
      assert.equal(svc.config.logLevel, "debug");
      // The failed calls were logged (one line per request), so the search below has something to search.
      assert.ok(svc.logs.filter((l) => l.includes('"status":401')).length >= 3, "401 request lines were captured");
    } finally {
      await svc.stop({ keepData: true });
    }
    await cli(["keys", "revoke", rotated.id], false);
    await cli(["keys", "list", "--json"], false);

    for (const secret of secrets) {
      const needles = [secret, secret.slice(-32), hashKey(secret)];
      for (const { label, text } of captured) {
        for (const needle of needles)
          assert.ok(
            !text.includes(needle),
            `${label} contains ${needle === secret ? "a key" : needle.length === 64 ? "a key hash" : "a key's secret part"}`,
          );
      }
    }
    for (const { label, text } of captured)
      assert.doesNotMatch(text, KEY_PATTERN, `${label} contains something shaped like a key`);
  });
});
