/**
 * A tiny REST client for the suites: sends a request, parses the JSON body, and checks every
 * response against the contract schema written from the spec before handing it back.
 */
import { assertRestContract } from "../contract/rest-schema.js";

/** A REST response as the suites inspect it. */
export interface RestResponse {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- bodies are checked by the schema
}

/** Sends `init` to `base + path` and validates the body against the contract. */
export async function rest(
  base: string,
  path: string,
  init: {
    method?: string;
    key?: string;
    body?: unknown;
    rawBody?: string | Uint8Array<ArrayBuffer>;
    headers?: Record<string, string>;
  } = {},
): Promise<RestResponse> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key !== undefined) headers.authorization = `Bearer ${init.key}`;
  let body: string | Uint8Array<ArrayBuffer> | undefined = init.rawBody;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await fetch(base + path, { method: init.method ?? (body === undefined ? "GET" : "POST"), headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${path} answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
  assertRestContract(path, res.status, parsed);
  return { status: res.status, headers: res.headers, body: parsed };
}
