/**
 * A real local HTTP server speaking the OpenAI /v1/embeddings protocol, for the embedder and
 * query-cache tests. Each test can script the next responses (429, 500, 400, or a request that
 * never answers) and read back the requests it received.
 */

import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** What the next requests get; consumed front to back, then "ok" forever. */
export type Step = "ok" | "429" | "500" | "400" | "hang";

/** A deterministic, not normalised vector per text (so the client must normalise). */
export function vectorOf(text: string): number[] {
  return Array.from(
    { length: EmbeddingsServer.DIMS },
    (_, i) => ((text.charCodeAt(i % text.length) || 1) % 13) + i + 1,
  );
}

/** The scripted server; see the module comment. */
export class EmbeddingsServer {
  static readonly DIMS = 8;
  script: Step[] = [];
  requests: { model: string; input: string[]; auth: string | undefined }[] = [];
  private readonly server: Server = createServer((req, res) => void this.handle(req, res));

  /** Listens on a free loopback port; resolves to the base URL. */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  reset(): void {
    this.script = [];
    this.requests = [];
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = "";
    for await (const chunk of req) body += chunk;
    if (req.method !== "POST" || req.url !== "/v1/embeddings") {
      res.writeHead(404).end();
      return;
    }
    const parsed = JSON.parse(body) as { model: string; input: string[] };
    this.requests.push({ ...parsed, auth: req.headers.authorization });
    const step = this.script.shift() ?? "ok";
    if (step === "hang") return; // never answers: the client's timeout must fire
    if (step === "429") {
      res
        .writeHead(429, { "retry-after": "0", "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: "rate limited" } }));
      return;
    }
    if (step === "500") {
      res.writeHead(500).end("upstream exploded");
      return;
    }
    if (step === "400") {
      res
        .writeHead(400, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: "input too long" } }));
      return;
    }
    // Answer in reverse order with explicit indexes, as some servers do.
    const data = parsed.input
      .map((text, index) => ({ object: "embedding", index, embedding: vectorOf(text) }))
      .reverse();
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ object: "list", data, model: parsed.model }));
  }
}
