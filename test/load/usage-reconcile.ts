/**
 * Every call counted exactly once: for each key, the successful calls the load tools saw (per
 * operation) must equal what the service recorded, read two ways: `threadsight usage KEY_ID
 * --json` (a separate process reading the accounts store and quota counters) and the Usage RPC
 * over REST (GET /api/v1/usage, the live service's view). Calls refused with 429 must not be in
 * either. For limited plans `used` is the quota counter and the per-operation split is the usage
 * rows, so both stores are checked; for the unlimited plan both come from the rows.
 */
import { runCli } from "../harness/seed.js";
import type { LoadKey } from "./load-keys.js";
import type { StreamRun } from "./streams.js";
import { isOk, isThrottled } from "./streams.js";
import type { Operation } from "./workload.js";
import { OPERATION_NAMES } from "./workload.js";

/** One key's reconciliation. */
export interface KeyUsage {
  label: string;
  plan: string;
  /** Successful calls the load tools saw, in total and per operation. */
  clientOk: number;
  clientOkByOp: Record<Operation, number>;
  /** 429 answers the tools saw (must not be counted). */
  clientThrottled: number;
  /** Any other answer or failure. */
  clientOther: number;
  /** `threadsight usage --json`: used, and per operation. */
  storeUsed: number;
  storeByOp: Record<Operation, number>;
  /** GET /api/v1/usage: used. */
  rpcUsed: number;
  /** True when all of the above agree. */
  exact: boolean;
  /**
   * True when the store and the RPC agree and counted - OK lies in [0, clientOther]: the only
   * extra counts are calls that failed after admission (the README's "What counts": a call that
   * reached an operation counts even if it then fails), never a 429, never twice.
   */
  explainedByFailures: boolean;
}

interface UsageJson {
  used: number;
  operations: { operation: string; count: number }[];
}

function zeroByOp(): Record<Operation, number> {
  return Object.fromEntries(OPERATION_NAMES.map((op) => [op, 0])) as Record<Operation, number>;
}

function byOp(u: UsageJson): Record<Operation, number> {
  const out = zeroByOp();
  for (const o of u.operations)
    if ((OPERATION_NAMES as string[]).includes(o.operation)) out[o.operation as Operation] = o.count;
  return out;
}

async function storeUsage(dataDir: string, keyId: string): Promise<UsageJson> {
  const res = await runCli(["usage", keyId, "--json"], { THREADSIGHT_DATA_DIR: dataDir });
  if (res.code !== 0) throw new Error(`threadsight usage ${keyId} exited ${res.code}: ${res.stderr.slice(-1000)}`);
  return JSON.parse(res.stdout) as UsageJson;
}

async function rpcUsage(baseUrl: string, key: string): Promise<UsageJson> {
  const res = await fetch(`${baseUrl}/api/v1/usage`, {
    headers: { authorization: `Bearer ${key}` },
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await res.json()) as { success: boolean; data: UsageJson };
  if (res.status !== 200 || !body.success)
    throw new Error(`GET /api/v1/usage answered ${res.status}: ${JSON.stringify(body).slice(0, 500)}`);
  return body.data;
}

/** Reconciles every key in `keys` against the runs; the service must still be up at `baseUrl`. */
export async function reconcileUsage(
  keys: readonly LoadKey[],
  runs: readonly StreamRun[],
  dataDir: string,
  baseUrl: string,
): Promise<KeyUsage[]> {
  return Promise.all(
    keys.map(async (k) => {
      const clientOkByOp = zeroByOp();
      let clientThrottled = 0;
      let clientOther = 0;
      for (const run of runs.filter((r) => r.keyLabel === k.label)) {
        for (const c of run.calls) {
          if (isOk(c.status)) clientOkByOp[run.op]++;
          else if (isThrottled(c.status)) clientThrottled++;
          else clientOther++;
        }
      }
      const [store, rpc] = await Promise.all([storeUsage(dataDir, k.id), rpcUsage(baseUrl, k.key)]);
      const clientOk = OPERATION_NAMES.reduce((a, op) => a + clientOkByOp[op], 0);
      const storeByOp = byOp(store);
      const exact =
        store.used === clientOk &&
        rpc.used === clientOk &&
        OPERATION_NAMES.every((op) => storeByOp[op] === clientOkByOp[op]);
      const extra = store.used - clientOk;
      const explainedByFailures =
        rpc.used === store.used &&
        extra >= 0 &&
        extra <= clientOther &&
        OPERATION_NAMES.every((op) => storeByOp[op] >= clientOkByOp[op]);
      return {
        label: k.label,
        plan: k.plan,
        clientOk,
        clientOkByOp,
        clientThrottled,
        clientOther,
        storeUsed: store.used,
        storeByOp,
        rpcUsed: rpc.used,
        exact,
        explainedByFailures,
      };
    }),
  );
}
