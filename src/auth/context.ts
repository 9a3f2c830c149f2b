/**
 * Connect context values set by the auth interceptor and read by the interceptors and handlers
 * after it. Living in one module keeps the keys unique.
 */
import { createContextKey } from "@connectrpc/connect";
import type { Caller } from "../accounts/caller.js";

/** The authenticated caller; undefined on services that need no key (health, reflection). */
export const CALLER = createContextKey<Caller | undefined>(undefined, { description: "authenticated caller" });

/**
 * Internal header through which the HTTP layer passes the client address to interceptors.
 * The server strips any client-supplied value before setting it, so it cannot be forged.
 */
export const PEER_HEADER = "x-threadsight-peer";
