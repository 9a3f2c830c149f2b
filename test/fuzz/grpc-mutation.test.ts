/**
 * A bounded, seeded fuzz loop: random mutations of valid request frames (bit flips, inserted,
 * deleted and overwritten bytes, truncation, a rewritten envelope header) sent to the running
 * service over gRPC (HTTP/2), gRPC-Web and Connect. No answer may be INTERNAL or UNKNOWN or lack
 * a status, and the service must keep answering. FUZZ_SEED and FUZZ_ITERATIONS override the
 * defaults; a failure prints the seed and the bytes so it can be replayed.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { seededRandom } from "../../src/topics/random.js";
import type { WireResult } from "./grpc-wire.js";
import { connectUnary, envelope, grpcWebCall, lenField, Status, varintField } from "./grpc-wire.js";
import { wireTarget } from "./wire-target.js";

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const ITERATIONS = Number(process.env.FUZZ_ITERATIONS ?? 300);

/** Valid request messages per method, the starting points of every mutation. */
const SEEDS: { path: string; payload: Buffer }[] = [
  {
    path: "/threadsight.v1.SearchService/SemanticSearch",
    payload: Buffer.concat([lenField(1, "pricing a saas product"), varintField(2, 5), lenField(3, "startups")]),
  },
  {
    path: "/threadsight.v1.SearchService/VectorSearch",
    payload: Buffer.concat([
      lenField(1, "hiring engineers"),
      varintField(2, 5),
      lenField(3, "2015-01-01"),
      lenField(4, "2016-12-31"),
    ]),
  },
  {
    path: "/threadsight.v1.LeadService/FindLeads",
    payload: Buffer.concat([lenField(1, "looking for a crm"), varintField(2, 5), varintField(3, 40)]),
  },
  {
    path: "/threadsight.v1.TrendService/ListTrends",
    payload: Buffer.concat([lenField(1, "2016-01-01"), lenField(2, "2016-01-31"), varintField(3, 5)]),
  },
  { path: "/threadsight.v1.UsageService/GetUsage", payload: Buffer.alloc(0) },
];

/** One random mutation of `bytes`. */
function mutate(bytes: Buffer, rnd: () => number): Buffer {
  const b = Buffer.from(bytes);
  const at = (): number => Math.floor(rnd() * Math.max(1, b.length));
  const byte = (): number => Math.floor(rnd() * 256);
  switch (Math.floor(rnd() * 7)) {
    case 0: // flip one bit
      if (b.length > 0) b[at()]! ^= 1 << Math.floor(rnd() * 8);
      return b;
    case 1: // overwrite a byte
      if (b.length > 0) b[at()] = byte();
      return b;
    case 2: {
      // insert random bytes
      const i = at();
      return Buffer.concat([
        b.subarray(0, i),
        Buffer.from(Array.from({ length: 1 + Math.floor(rnd() * 8) }, byte)),
        b.subarray(i),
      ]);
    }
    case 3: {
      // delete a run
      const i = at();
      return Buffer.concat([b.subarray(0, i), b.subarray(i + 1 + Math.floor(rnd() * 4))]);
    }
    case 4: // truncate
      return b.subarray(0, at());
    case 5: // 0xff 0xfe somewhere (invalid UTF-8 when it lands in a string)
      return Buffer.concat([b.subarray(0, at()), Buffer.from([0xff, 0xfe]), b.subarray(at())]);
    default: // a run of continuation bytes (an unterminated varint)
      return Buffer.concat([b, Buffer.from([0x10, 0xff, 0xff, 0xff])]);
  }
}

/** Frames `payload`, sometimes with a lying header (length or flags). */
function frame(payload: Buffer, rnd: () => number): Buffer {
  const r = rnd();
  if (r < 0.1) return envelope(payload, { declaredLength: payload.length + 1 + Math.floor(rnd() * 50) });
  if (r < 0.15) return envelope(payload, { declaredLength: Math.max(0, payload.length - 1) });
  if (r < 0.2) return envelope(payload, { flags: 1 });
  if (r < 0.25) return Buffer.concat([envelope(payload), envelope(payload)]);
  return envelope(payload);
}

describe("seeded mutation fuzzing of gRPC request frames", () => {
  const target = wireTarget();

  test(`${ITERATIONS} mutations (seed ${SEED}): never INTERNAL or UNKNOWN, always a status`, async () => {
    const rnd = seededRandom(SEED);
    const seen = new Map<number, number>();
    for (let i = 0; i < ITERATIONS; i++) {
      const base = SEEDS[Math.floor(rnd() * SEEDS.length)]!;
      let payload = mutate(base.payload, rnd);
      if (rnd() < 0.3) payload = mutate(payload, rnd);
      const body = frame(payload, rnd);
      const transport = Math.floor(rnd() * 3);
      let res: WireResult;
      if (transport === 0) res = await target.h2.call(base.path, body, target.auth);
      else if (transport === 1) res = await grpcWebCall(target.url, base.path, body, target.auth);
      else res = await connectUnary(target.url, base.path, payload, target.auth);
      const replay = `seed=${SEED} iteration=${i} transport=${["grpc", "grpc-web", "connect"][transport]} path=${base.path} bytes=${(transport === 2 ? payload : body).toString("hex")}`;
      assert.notEqual(res.grpcStatus, undefined, `no status (HTTP ${res.httpStatus}); ${replay}`);
      assert.ok(
        res.grpcStatus !== Status.INTERNAL && res.grpcStatus !== Status.UNKNOWN,
        `status ${res.grpcStatus} "${res.grpcMessage}"; ${replay}`,
      );
      seen.set(res.grpcStatus!, (seen.get(res.grpcStatus!) ?? 0) + 1);
    }
    // The loop must exercise both outcomes, or it is not testing anything.
    assert.ok((seen.get(Status.OK) ?? 0) > 0, `no mutation was accepted: ${JSON.stringify([...seen])}`);
    assert.ok((seen.get(Status.INVALID_ARGUMENT) ?? 0) > 0, `no mutation was refused: ${JSON.stringify([...seen])}`);
    console.log(`fuzz seed ${SEED}: statuses ${JSON.stringify(Object.fromEntries(seen))}`);
  });

  test("the service is healthy afterwards", async () => {
    const res = await target.h2.call(SEEDS[0]!.path, envelope(SEEDS[0]!.payload), target.auth);
    assert.equal(res.grpcStatus, Status.OK, res.grpcMessage);
    assert.equal((await fetch(`${target.url}/healthz`)).status, 200);
  });
});
