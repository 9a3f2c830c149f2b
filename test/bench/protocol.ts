/**
 * Protocol overhead: one query, its embedding cached in the service after the first call, sent
 * again and again over REST (JSON through the gateway), Connect with JSON, Connect with binary
 * protobuf (both HTTP/1.1, as REST) and gRPC (HTTP/2). The service work is the same for every
 * protocol, so the differences are encoding, framing and the gateway.
 *
 * Rounds interleave the protocols (the order rotates every round); each round gives every
 * protocol a median over its calls and a ratio to gRPC's median of the same round; the figure
 * reported is the median of those ratios, so background load that hits one round cancels out.
 */
import type { BackendTarget } from "./backends.js";
import type { Method, Protocol, SearchCall } from "./search-clients.js";
import { connectCall, grpcCall, restCall } from "./search-clients.js";
import { spawnService } from "./service-process.js";
import { median, msSince } from "./stats.js";

/** One method over one protocol. */
export interface ProtocolRow {
  method: Method;
  protocol: Protocol;
  /** Median over rounds of the round's median latency, ms. */
  p50: number;
  /** Per-round ratio to gRPC, and its median. */
  ratios: number[];
  ratio: number;
}

/** The protocol section for one backend. */
export interface ProtocolResult {
  backend: string;
  posts: number;
  query: string;
  rounds: number;
  callsPerRound: number;
  rows: ProtocolRow[];
}

/** Goal: REST at most this many times gRPC. */
export const REST_GOAL = 1.15;

const PROTOCOLS: readonly Protocol[] = ["rest", "connect-json", "connect-binary", "grpc"];
const METHODS: readonly Method[] = ["semantic", "vector"];
/** A question of the kind the service is for; one query so every call after the first is cached. */
export const PROTOCOL_QUERY = "how do I find my first customers for a B2B SaaS product";

/** Measures protocol overhead against `target`. */
export async function benchProtocol(
  target: BackendTarget,
  opts: { rounds: number; callsPerRound: number },
  log: (s: string) => void,
): Promise<ProtocolResult> {
  const svc = await spawnService(target.dataDir, target.env);
  const closers: (() => void)[] = [];
  const calls = new Map<string, SearchCall>();
  for (const m of METHODS) {
    calls.set(`${m}/rest`, restCall(svc.url, svc.key, m));
    calls.set(`${m}/connect-json`, connectCall(svc.url, svc.key, m, false));
    calls.set(`${m}/connect-binary`, connectCall(svc.url, svc.key, m, true));
    const g = grpcCall(svc.address, svc.key, m);
    closers.push(g.close);
    calls.set(`${m}/grpc`, g.call);
  }
  const p50s = new Map<string, number[]>();
  const ratios = new Map<string, number[]>();
  try {
    // Warm-up: the embedding gets cached, connections open, code paths get compiled.
    for (const call of calls.values()) for (let i = 0; i < 5; i++) await call(PROTOCOL_QUERY);
    for (let round = 0; round < opts.rounds; round++) {
      for (const m of METHODS) {
        const order = PROTOCOLS.map((_, i) => PROTOCOLS[(i + round) % PROTOCOLS.length]!);
        const roundP50 = new Map<Protocol, number>();
        for (const p of order) {
          const call = calls.get(`${m}/${p}`)!;
          const lat: number[] = [];
          for (let i = 0; i < opts.callsPerRound; i++) {
            const t = process.hrtime.bigint();
            await call(PROTOCOL_QUERY);
            lat.push(msSince(t));
          }
          roundP50.set(p, median(lat));
        }
        const grpc = roundP50.get("grpc")!;
        for (const p of PROTOCOLS) {
          const k = `${m}/${p}`;
          p50s.set(k, [...(p50s.get(k) ?? []), roundP50.get(p)!]);
          ratios.set(k, [...(ratios.get(k) ?? []), roundP50.get(p)! / grpc]);
        }
        log(
          `protocol ${target.backend} r${round + 1} ${m}: ${PROTOCOLS.map((p) => `${p} ${roundP50.get(p)!.toFixed(2)}`).join(", ")} ms`,
        );
      }
    }
  } finally {
    for (const close of closers) close();
    await svc.stop();
  }
  const rows = METHODS.flatMap((m) =>
    PROTOCOLS.map((p): ProtocolRow => {
      const k = `${m}/${p}`;
      return {
        method: m,
        protocol: p,
        p50: median(p50s.get(k)!),
        ratios: ratios.get(k)!,
        ratio: median(ratios.get(k)!),
      };
    }),
  );
  return {
    backend: target.backend,
    posts: svc.posts,
    query: PROTOCOL_QUERY,
    rounds: opts.rounds,
    callsPerRound: opts.callsPerRound,
    rows,
  };
}
