/**
 * Embeddings from an OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, TEI): POST
 * {url}/v1/embeddings with {model, input: string[]}. Each request has its own timeout; 429 and
 * 5xx are retried with exponential backoff (honouring Retry-After), other 4xx fail at once with
 * the server's message. The dimension is whatever the first response returns: create the
 * embedder with {@link connectOpenAiEmbedder}, which makes one probe request.
 */
import type { Embedder } from "./embedder.js";

/** Options for the OpenAI-compatible embedder. */
export interface OpenAiEmbedderOptions {
  /** Base URL; "/v1/embeddings" is appended (a trailing "/v1" is tolerated). */
  url: string;
  model: string;
  apiKey?: string | undefined;
  /** Per-request timeout, ms. Default 30 s. */
  timeoutMs?: number;
  /** Retries after the first attempt on 429/5xx/network errors. Default 4. */
  retries?: number;
  /** First backoff delay, ms; doubles each retry, capped at 10 s. Default 500. */
  backoffMs?: number;
  /** Texts per request. Default 128. */
  batchSize?: number;
}

/** Thrown for a failed embeddings call; `status` is the HTTP status when there was one. */
export class EmbeddingsHttpError extends Error {
  override readonly name = "EmbeddingsHttpError";
  constructor(
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      signal?.removeEventListener("abort", abort);
      resolve();
    }
    function abort(): void {
      clearTimeout(timer);
      reject(signal!.reason);
    }
    signal?.addEventListener("abort", abort, { once: true });
  });

function normalise(values: readonly number[]): Float32Array {
  const out = Float32Array.from(values);
  let norm = 0;
  for (const x of out) norm += x * x;
  if (norm > 0) {
    const scale = 1 / Math.sqrt(norm);
    for (let i = 0; i < out.length; i += 1) out[i]! *= scale;
  }
  return out;
}

/** OpenAI-compatible embedder. `dimensions` is 0 until the first successful call. */
export class OpenAiEmbedder implements Embedder {
  readonly model: string;
  private dims = 0;
  private readonly endpoint: string;

  constructor(private readonly options: OpenAiEmbedderOptions) {
    this.model = `openai:${options.model}`;
    this.endpoint = `${options.url.replace(/\/+$/, "").replace(/\/v1$/, "")}/v1/embeddings`;
  }

  get dimensions(): number {
    return this.dims;
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const size = this.options.batchSize ?? 128;
    const out: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += size) {
      out.push(...(await this.request(texts.slice(start, start + size), signal)));
    }
    return out;
  }

  async close(): Promise<void> {
    // Stateless HTTP client: nothing to release.
  }

  private async request(input: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const retries = this.options.retries ?? 4;
    let delay = this.options.backoffMs ?? 500;
    for (let attempt = 0; ; attempt += 1) {
      signal?.throwIfAborted();
      let retryAfterMs: number | undefined;
      let failure: EmbeddingsHttpError;
      try {
        return await this.attempt(input, signal);
      } catch (err) {
        if (signal?.aborted === true) throw signal.reason;
        if (!(err instanceof RetryableError)) throw err;
        failure = err.error;
        retryAfterMs = err.retryAfterMs;
      }
      if (attempt >= retries)
        throw new EmbeddingsHttpError(`${failure.message} (gave up after ${attempt + 1} attempts)`, failure.status, {
          cause: failure,
        });
      await sleep(Math.min(retryAfterMs ?? delay, 10_000), signal);
      delay = Math.min(delay * 2, 10_000);
    }
  }

  private async attempt(input: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const timeoutMs = this.options.timeoutMs ?? 30_000;
    const timeout = AbortSignal.timeout(timeoutMs);
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.options.apiKey !== undefined) headers["authorization"] = `Bearer ${this.options.apiKey}`;
    let response: Response;
    try {
      response = await fetch(this.endpoint, {
        method: "POST",
        headers,
        body: JSON.stringify({ model: this.options.model, input }),
        signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]),
      });
    } catch (err) {
      if (signal?.aborted === true) throw signal.reason;
      const message = timeout.aborted
        ? `embeddings request to ${this.endpoint} timed out after ${timeoutMs} ms`
        : `embeddings request to ${this.endpoint} failed: ${(err as Error).message}`;
      throw new RetryableError(new EmbeddingsHttpError(message, undefined, { cause: err }));
    }
    let body: string;
    try {
      body = await response.text();
    } catch (err) {
      if (signal?.aborted === true) throw signal.reason;
      const message = timeout.aborted
        ? `embeddings response from ${this.endpoint} timed out after ${timeoutMs} ms`
        : `reading the embeddings response failed: ${(err as Error).message}`;
      throw new RetryableError(new EmbeddingsHttpError(message, undefined, { cause: err }));
    }
    if (!response.ok) {
      const error = new EmbeddingsHttpError(
        `embeddings endpoint ${this.endpoint} answered ${response.status}: ${serverMessage(body)}`,
        response.status,
      );
      if (response.status === 429 || response.status >= 500)
        throw new RetryableError(error, retryAfter(response.headers.get("retry-after")));
      throw error;
    }
    return this.parse(body, input.length);
  }

  private parse(body: string, expected: number): Float32Array[] {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new EmbeddingsHttpError(`embeddings endpoint ${this.endpoint} returned invalid JSON`);
    }
    const data = (json as { data?: unknown }).data;
    if (!Array.isArray(data) || data.length !== expected) {
      throw new EmbeddingsHttpError(
        `embeddings endpoint ${this.endpoint} returned ${Array.isArray(data) ? data.length : "no"} embeddings for ${expected} inputs`,
      );
    }
    const out = new Array<Float32Array>(expected);
    data.forEach((item: { index?: unknown; embedding?: unknown }, i) => {
      const index = typeof item.index === "number" ? item.index : i;
      if (
        !Array.isArray(item.embedding) ||
        !item.embedding.every((x) => typeof x === "number") ||
        index < 0 ||
        index >= expected
      ) {
        throw new EmbeddingsHttpError(
          `embeddings endpoint ${this.endpoint} returned a malformed embedding at position ${i}`,
        );
      }
      const dims = item.embedding.length;
      if (this.dims === 0) this.dims = dims;
      else if (dims !== this.dims)
        throw new EmbeddingsHttpError(`embeddings endpoint returned ${dims} dimensions, expected ${this.dims}`);
      out[index] = normalise(item.embedding as number[]);
    });
    return out;
  }
}

class RetryableError extends Error {
  constructor(
    readonly error: EmbeddingsHttpError,
    readonly retryAfterMs?: number,
  ) {
    super(error.message);
  }
}

function retryAfter(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

function serverMessage(body: string): string {
  try {
    const json = JSON.parse(body) as { error?: { message?: unknown } | string };
    const message = typeof json.error === "string" ? json.error : json.error?.message;
    if (typeof message === "string") return message.slice(0, 300);
  } catch {
    // not JSON: fall through to the raw text
  }
  return body.slice(0, 300) || "(empty body)";
}

/** Creates the embedder and makes one probe request so `dimensions` is known. */
export async function connectOpenAiEmbedder(
  options: OpenAiEmbedderOptions,
  signal?: AbortSignal,
): Promise<OpenAiEmbedder> {
  const embedder = new OpenAiEmbedder(options);
  await embedder.embed(["dimension probe"], signal);
  return embedder;
}
