/**
 * The running service the gRPC bad-input suites aim at: started for one describe block, with an
 * enterprise key (so limits never answer first) and one shared HTTP/2 session, the way a real
 * client keeps its connection across calls.
 */
import { after, before } from "node:test";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";
import { H2Client } from "./grpc-wire.js";

/** Filled in by the block's `before` hook; valid inside its tests. */
export interface WireTarget {
  url: string;
  auth: Record<string, string>;
  h2: H2Client;
}

/** Registers before/after hooks in the current describe block and returns the target they fill. */
export function wireTarget(): WireTarget {
  let svc: RunningService | undefined;
  const target = {} as WireTarget;
  before(async () => {
    svc = await startService();
    target.url = svc.url;
    target.auth = { authorization: `Bearer ${await svc.createKey("enterprise")}` };
    target.h2 = new H2Client(svc.url);
  });
  after(async () => {
    target.h2?.close();
    await svc?.stop();
  });
  return target;
}
