/**
 * The part of autocannon's programmatic API the load run uses (autocannon ships no types; this
 * avoids a second devDependency for them). See node_modules/autocannon/README.md.
 */
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  /** One request a connection sends; connections cycle through the list in order. */
  export interface AutocannonRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }

  export interface AutocannonOptions {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    requests?: AutocannonRequest[];
    connections?: number;
    pipelining?: number;
    /** Total requests per second, spread over the connections (each gets a whole share). */
    overallRate?: number;
    /** Exactly this many requests (spread over the connections); the run ends when all answered. */
    amount?: number;
    duration?: number;
    /** Per-request timeout, seconds. */
    timeout?: number;
    excludeErrorStats?: boolean;
  }

  export interface AutocannonResult {
    statusCodeStats: Record<string, { count: number }>;
    errors: number;
    timeouts: number;
    duration: number;
  }

  /** A running instance: an event emitter that is also a promise of the result. */
  export interface AutocannonInstance extends EventEmitter, PromiseLike<AutocannonResult> {
    stop(): void;
    on(
      event: "response",
      listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void,
    ): this;
    on(event: "reqError", listener: (error: Error) => void): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  export default function autocannon(options: AutocannonOptions): AutocannonInstance;
}
