/**
 * A real local LLM behind the OpenAI-compatible chat-completions protocol, for the tests of the
 * LLM ai_summary: SmolLM2-135M-Instruct (scripts/install-smollm2.sh) run by node-llama-cpp on the
 * CPU, served on a free loopback port. node-llama-cpp has no HTTP server of its own, so this one
 * maps `POST /v1/chat/completions` (system and user messages, max_tokens, temperature) onto a
 * chat session, one request at a time, and answers in the protocol's shape.
 */

import { existsSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { getLlama, LlamaChatSession, type LlamaContext, type LlamaModel } from "node-llama-cpp";

/** Where scripts/install-smollm2.sh puts the model. */
export function smolLm2Path(): string {
  const cache = process.env.THREADSIGHT_CACHE ?? path.join(os.homedir(), ".cache/threadsight");
  return path.join(
    process.env.SMOLLM2_DIR ?? path.join(cache, "models/smollm2-135m-instruct"),
    "SmolLM2-135M-Instruct.Q4_1.gguf",
  );
}

/** True when the model file is in place. */
export function hasSmolLm2(): boolean {
  return existsSync(smolLm2Path());
}

/** A running server. */
export interface LlamaServer {
  url: string;
  /** The answers given, in order. */
  answers: string[];
  close(): Promise<void>;
}

interface ChatMessage {
  role: string;
  content: string;
}

/** Loads the model (one CPU thread, a small context) and serves it on 127.0.0.1. */
export async function startLlamaServer(modelPath = smolLm2Path()): Promise<LlamaServer> {
  const llama = await getLlama({ gpu: false, build: "never" });
  const model: LlamaModel = await llama.loadModel({ modelPath });
  const context: LlamaContext = await model.createContext({ contextSize: 2048, threads: 1 });
  const answers: string[] = [];
  // One context sequence: requests are answered one after another.
  let queue: Promise<unknown> = Promise.resolve();
  const complete = async (messages: ChatMessage[], maxTokens: number, temperature: number): Promise<string> => {
    const system = messages.find((m) => m.role === "system")?.content;
    const user = messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
    const sequence = context.getSequence();
    try {
      const session = new LlamaChatSession({ contextSequence: sequence, ...(system ? { systemPrompt: system } : {}) });
      return await session.prompt(user, { maxTokens, temperature, seed: 1 });
    } finally {
      sequence.dispose();
    }
  };
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        res.writeHead(404, { "content-type": "application/json" }).end('{"error":{"message":"not found"}}');
        return;
      }
      let body: { model?: string; messages?: ChatMessage[]; max_tokens?: number; temperature?: number };
      try {
        body = JSON.parse(raw);
      } catch {
        res.writeHead(400, { "content-type": "application/json" }).end('{"error":{"message":"invalid JSON"}}');
        return;
      }
      const run = queue.then(() => complete(body.messages ?? [], body.max_tokens ?? 128, body.temperature ?? 0));
      queue = run.catch(() => {});
      run.then(
        (content) => {
          answers.push(content);
          if (res.destroyed) return;
          res.writeHead(200, { "content-type": "application/json" }).end(
            JSON.stringify({
              id: `chatcmpl-local-${answers.length}`,
              object: "chat.completion",
              created: Math.floor(Date.now() / 1000),
              model: body.model ?? "smollm2-135m-instruct",
              choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
            }),
          );
        },
        (err: Error) => {
          if (!res.destroyed)
            res
              .writeHead(500, { "content-type": "application/json" })
              .end(JSON.stringify({ error: { message: err.message } }));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answers,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await queue;
      await context.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}
