/**
 * Worker thread body for a local encoder (USE-lite, or MiniLM as workerData says): loads the
 * model once (ONNX Runtime, one thread per worker), then answers embed requests with unit
 * vectors packed into one transferable Float32Array per request. Started only by use-embedder.ts.
 */
import { parentPort, workerData } from "node:worker_threads";
import { MiniLmSession } from "./minilm/minilm-session.js";
import type { LocalEncoder, UseClose, UseReply, UseRequest } from "./use-embedder.js";
import { UseSession } from "./use-onnx/use-session.js";

const port = parentPort;
if (port === null) throw new Error("use-worker.ts must run in a worker thread");

function post(reply: UseReply, transfer: ArrayBuffer[] = []): void {
  port!.postMessage(reply, transfer);
}

try {
  const encoder = (workerData as LocalEncoder | undefined) ?? { kind: "use-lite" };
  const session = encoder.kind === "minilm" ? await MiniLmSession.load(encoder, 1) : await UseSession.load(1);
  post({ kind: "ready", dimensions: session.dimensions });
  // Requests run one after another (the main thread may send the next one early).
  let previous: Promise<void> = Promise.resolve();
  let closing = false;
  port.on("message", (request: UseRequest | UseClose) => {
    if ("kind" in request) {
      closing = true;
      // Exit only after the running request (ONNX Runtime must not outlive this thread's
      // JavaScript environment mid-inference) and with the session freed.
      previous = previous.then(async () => {
        await session.close().catch(() => undefined);
        process.exit(0);
      });
      return;
    }
    previous = previous.then(async () => {
      // Requests sent ahead before a close are not run: their callers were already answered.
      if (closing) return;
      try {
        const flat = await session.embed(request.texts);
        post({ kind: "vectors", id: request.id, flat }, [flat.buffer as ArrayBuffer]);
      } catch (err) {
        post({ kind: "error", id: request.id, message: (err as Error).message });
      }
    });
  });
} catch (err) {
  post({ kind: "fatal", message: `cannot load the sentence encoder: ${(err as Error).message}` });
}
