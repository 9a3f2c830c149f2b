/**
 * all-MiniLM-L6-v2 as the service runs it (tokenizers.js + the in-memory ONNX graph) against
 * references made outside it by scripts/minilm-reference.py: token ids from Hugging Face's Rust
 * tokenizer and vectors from an independent NumPy forward pass. Texts are written for the test
 * (test/enrich/fixtures/minilm-texts.json): edge cases of normalisation, scripts, lengths past the
 * 256-token cut. Needs the model files (scripts/install-minilm.sh); CI requires them.
 */
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { ConfigError, loadConfig } from "../../src/config.js";
import { createEmbedder } from "../../src/enrich/create-embedder.js";
import { MINILM_DIMENSIONS } from "../../src/enrich/minilm/bert-graph.js";
import {
  defaultMiniLmDirectory,
  MINILM_FILES,
  MINILM_MODEL_ID,
  MiniLmFilesError,
  verifyMiniLmFiles,
} from "../../src/enrich/minilm/minilm-files.js";
import { MiniLmSession } from "../../src/enrich/minilm/minilm-session.js";
import { parseSafetensors } from "../../src/enrich/minilm/safetensors.js";
import { missingBackend } from "../harness/backend-policy.js";

interface Reference {
  text: string;
  ids: number[];
  vector: number[];
}

const DIR = process.env.EMBEDDINGS_MODEL_DIR ?? defaultMiniLmDirectory();
const REFERENCE: Reference[] = JSON.parse(
  readFileSync(new URL("./fixtures/minilm-reference.json", import.meta.url), "utf8"),
);
const present =
  existsSync(path.join(DIR, MINILM_FILES.weights.name)) && existsSync(path.join(DIR, MINILM_FILES.tokenizer.name));
const skip = present ? false : missingBackend("minilm", `no model files in ${DIR} (bash scripts/install-minilm.sh)`);

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

function rows(flat: Float32Array): Float32Array[] {
  const out: Float32Array[] = [];
  for (let i = 0; i < flat.length; i += MINILM_DIMENSIONS) out.push(flat.subarray(i, i + MINILM_DIMENSIONS));
  return out;
}

describe("all-MiniLM-L6-v2 against the reference", { skip }, () => {
  let session: MiniLmSession;
  before(async () => {
    session = await MiniLmSession.load(await verifyMiniLmFiles(DIR));
  });
  after(() => session?.close());

  test("token ids equal the reference tokenizer's on every text", () => {
    for (const ref of REFERENCE)
      assert.deepEqual(session.tokens(ref.text), ref.ids, JSON.stringify(ref.text.slice(0, 60)));
    assert.ok(
      REFERENCE.some((r) => r.ids.length === 256),
      "a text reaches the 256-token cut",
    );
  });

  test("each text alone: the vector matches the reference, unit length", async () => {
    for (const ref of REFERENCE) {
      const [v] = rows(await session.embed([ref.text]));
      assert.ok(
        cosine(v!, ref.vector) > 0.9999,
        `${JSON.stringify(ref.text.slice(0, 40))}: cosine ${cosine(v!, ref.vector)}`,
      );
      assert.ok(Math.abs(cosine(v!, v!) - 1) < 1e-5 && Math.abs(Math.hypot(...v!) - 1) < 1e-4);
    }
  });

  test("in one padded batch: padding changes no vector", async () => {
    const vectors = rows(await session.embed(REFERENCE.map((r) => r.text)));
    REFERENCE.forEach((ref, i) =>
      assert.ok(cosine(vectors[i]!, ref.vector) > 0.9999, `${i}: ${cosine(vectors[i]!, ref.vector)}`),
    );
  });

  test("a paraphrase is nearer than an unrelated text", async () => {
    const [a, b, c] = rows(
      await session.embed([
        "How do I price my SaaS product?",
        "What should I charge for a subscription software?",
        "My cat sleeps on the keyboard.",
      ]),
    );
    assert.ok(cosine(a!, b!) > cosine(a!, c!) + 0.2, `${cosine(a!, b!)} vs ${cosine(a!, c!)}`);
  });
});

describe("the embedder the config starts", { skip }, () => {
  test("EMBEDDINGS_MODEL=all-minilm-l6-v2: 384-d vectors from worker threads, same as the session", async () => {
    const config = loadConfig({ EMBEDDINGS_MODEL: "all-minilm-l6-v2", EMBEDDINGS_MODEL_DIR: DIR, EMBED_WORKERS: "2" });
    assert.equal(config.localEncoder, "all-minilm-l6-v2");
    const embedder = await createEmbedder(config);
    try {
      assert.equal(embedder.model, MINILM_MODEL_ID);
      assert.equal(embedder.dimensions, MINILM_DIMENSIONS);
      const texts = REFERENCE.map((r) => r.text);
      const vectors = await embedder.embed(texts);
      vectors.forEach((v, i) => assert.ok(cosine(v, REFERENCE[i]!.vector) > 0.9999, `${i}`));
    } finally {
      await embedder.close();
    }
  });
});

describe("model files and settings", () => {
  test("a missing file names the install script and the manual way", async () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), "minilm-"));
    try {
      await assert.rejects(
        verifyMiniLmFiles(empty),
        (err: Error) =>
          err instanceof MiniLmFilesError && /install-minilm\.sh/.test(err.message) && /1110a243/.test(err.message),
      );
    } finally {
      rmSync(empty, { recursive: true });
    }
  });

  test("a file with another hash is refused, naming it", { skip }, async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "minilm-"));
    try {
      copyFileSync(path.join(DIR, MINILM_FILES.weights.name), path.join(dir, MINILM_FILES.weights.name));
      writeFileSync(path.join(dir, MINILM_FILES.tokenizer.name), "{}");
      await assert.rejects(
        verifyMiniLmFiles(dir),
        (err: Error) => err instanceof MiniLmFilesError && err.message.includes("tokenizer.json has SHA-256"),
      );
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  test("safetensors: a header longer than the file is an error, F32 tensors are read", () => {
    const bad = new Uint8Array(16);
    new DataView(bad.buffer).setBigUint64(0, 1000n, true);
    assert.throws(() => parseSafetensors(bad), /header length 1000 exceeds/);
    const header = new TextEncoder().encode(
      JSON.stringify({
        a: { dtype: "F32", shape: [2], data_offsets: [0, 8] },
        p: { dtype: "I64", shape: [1], data_offsets: [8, 16] },
      }),
    );
    const file = new Uint8Array(8 + header.length + 16);
    new DataView(file.buffer).setBigUint64(0, BigInt(header.length), true);
    file.set(header, 8);
    new DataView(file.buffer).setFloat32(8 + header.length, 1.5, true);
    new DataView(file.buffer).setFloat32(8 + header.length + 4, -2, true);
    const tensors = parseSafetensors(file);
    assert.deepEqual([...tensors.keys()], ["a"]);
    assert.deepEqual([...tensors.get("a")!.data], [1.5, -2]);
  });

  test("EMBEDDINGS_MODEL without EMBEDDINGS_URL must name a bundled encoder", () => {
    assert.throws(
      () => loadConfig({ EMBEDDINGS_MODEL: "bert-large" }),
      (err: Error) =>
        err instanceof ConfigError && /EMBEDDINGS_MODEL must be one of use-lite, all-minilm-l6-v2/.test(err.message),
    );
    assert.equal(loadConfig({}).localEncoder, "use-lite");
    assert.equal(
      loadConfig({ EMBEDDINGS_URL: "http://127.0.0.1:1/v1", EMBEDDINGS_MODEL: "bge-small" }).embeddingsModel,
      "bge-small",
    );
  });
});
