/**
 * A local HTTP server that speaks the OpenAI-compatible chat-completions protocol, for the one
 * component that cannot run here (a hosted LLM). It records requests and answers with what the
 * test scripts: a completion, an HTTP error, or a delay.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** What the fake does with the next request. */
export type ChatBehaviour =
  | { kind: "complete"; content: string; delayMs?: number }
  | { kind: "status"; status: number; body?: string }
  | { kind: "garbage" };

/** A running fake. */
export interface FakeChatServer {
  url: string;
  requests: { headers: http.IncomingHttpHeaders; body: any }[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  behave(next: ChatBehaviour): void;
  close(): Promise<void>;
}

/** Starts the fake on an ephemeral loopback port. */
export async function startFakeChatServer(): Promise<FakeChatServer> {
  let behaviour: ChatBehaviour = { kind: "complete", content: "ok" };
  const requests: FakeChatServer["requests"] = [];
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        res.writeHead(404, { "content-type": "application/json" }).end('{"error":{"message":"not found"}}');
        return;
      }
      requests.push({ headers: req.headers, body: JSON.parse(raw) });
      const b = behaviour;
      if (b.kind === "status") {
        res
          .writeHead(b.status, { "content-type": "application/json" })
          .end(b.body ?? '{"error":{"message":"server error","type":"server_error"}}');
        return;
      }
      if (b.kind === "garbage") {
        res.writeHead(200, { "content-type": "application/json" }).end('{"choices": "nope"}');
        return;
      }
      const body = JSON.stringify({
        id: "chatcmpl-test",
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: JSON.parse(raw).model,
        choices: [{ index: 0, message: { role: "assistant", content: b.content }, finish_reason: "stop" }],
        usage: { prompt_tokens: 100, completion_tokens: 40, total_tokens: 140 },
      });
      const send = (): void => {
        if (!res.destroyed) res.writeHead(200, { "content-type": "application/json" }).end(body);
      };
      if (b.delayMs) setTimeout(send, b.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    behave(next) {
      behaviour = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
