/**
 * Closing the bundled embedder and starting another in the same process (the CLI's serve path
 * after a failed start, tests, the benchmark). Its own file, so no other embedder's workers
 * keep the native ONNX Runtime addon loaded while it runs: node:test runs each file in its own
 * process.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";

test("a new embedder starts after every worker of the previous one has exited", async () => {
  for (let round = 0; round < 3; round += 1) {
    const embedder = await startUseEmbedder(1);
    try {
      const [v] = await embedder.embed([`round ${round}`]);
      assert.equal(v!.length, 512);
    } finally {
      await embedder.close();
    }
  }
});

test("closing while the workers are mid-inference ends the calls, not the process", async () => {
  // Terminating a worker while ONNX Runtime ran an inference aborted the whole process
  // ("terminate called after throwing an instance of 'Napi::Error'").
  const long = Array.from(
    { length: 64 },
    (_, i) => `${"a long post about pricing, hiring and churn in a small software company ".repeat(12)} ${i}`,
  );
  const embedder = await startUseEmbedder(2);
  const outcomes: Promise<Error>[] = [];
  for (let call = 0; call < 8; call += 1) {
    outcomes.push(
      embedder.embed(long).then(
        () => new Error("finished"),
        (e: Error) => e,
      ),
    );
    await new Promise((r) => setTimeout(r, 20 + call * 23));
  }
  await embedder.close();
  const messages = (await Promise.all(outcomes)).map((e) => e.message);
  assert.ok(messages.includes("embedder closed"), messages.join("; "));
  // Had a cut-off inference been left running, it would abort the process when it completed.
  await new Promise((r) => setTimeout(r, 1_500));
  const again = await startUseEmbedder(1);
  try {
    assert.equal((await again.embed(["still here"]))[0]!.length, 512);
  } finally {
    await again.close();
  }
});
