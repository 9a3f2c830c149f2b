/**
 * Response headers in the document: the request id every response carries, the limit headers
 * of metered calls (names from limit-headers.ts; the Record makes a new limit header fail to
 * compile until it is documented here), Retry-After and WWW-Authenticate.
 */
import { LIMIT_HEADER_NAMES, UNLIMITED } from "../limits/limit-headers.js";
import { REQUEST_ID_HEADER } from "../observability/request-id.js";
import type { JsonSchema } from "./json-schema.js";

/** One documented header: its conventional spelling, meaning and value schema. */
interface HeaderDoc {
  name: string;
  description: string;
  schema: JsonSchema;
}

const digits = { type: "string", pattern: "^[0-9]+$" } as const;
const quotaValue = { type: "string", pattern: `^([0-9]+|${UNLIMITED})$` } as const;

const LIMIT_DOCS: Readonly<Record<(typeof LIMIT_HEADER_NAMES)[number], HeaderDoc>> = {
  "x-ratelimit-limit": {
    name: "X-RateLimit-Limit",
    description: "Calls allowed in the current one-minute window.",
    schema: digits,
  },
  "x-ratelimit-remaining": {
    name: "X-RateLimit-Remaining",
    description: "Calls left in the current one-minute window.",
    schema: digits,
  },
  "x-ratelimit-reset": {
    name: "X-RateLimit-Reset",
    description: "When the one-minute window ends, Unix epoch seconds.",
    schema: digits,
  },
  "x-quota-limit": {
    name: "X-Quota-Limit",
    description: `The plan's quota for the period, or \`${UNLIMITED}\`.`,
    schema: quotaValue,
  },
  "x-quota-remaining": {
    name: "X-Quota-Remaining",
    description: `Calls left in the quota period, or \`${UNLIMITED}\`.`,
    schema: quotaValue,
  },
  "x-quota-reset": {
    name: "X-Quota-Reset",
    description: "When the quota period ends, Unix epoch seconds; absent on plans without a quota.",
    schema: digits,
  },
  "ratelimit-policy": {
    name: "RateLimit-Policy",
    description:
      'The limits in force (draft-ietf-httpapi-ratelimit-headers): `"minute";q=<limit>;w=60` and, unless unlimited, `"quota";q=<limit>;w=<period seconds>`.',
    schema: { type: "string" },
  },
  ratelimit: {
    name: "RateLimit",
    description:
      'Where the caller stands in each policy: `"minute";r=<remaining>;t=<seconds to reset>`, and the same for `"quota"`.',
    schema: { type: "string" },
  },
};

/** Limit headers a metered success always carries (X-Quota-Reset is absent on unlimited plans). */
const ALWAYS_ON_METERED: ReadonlySet<string> = new Set(LIMIT_HEADER_NAMES.filter((n) => n !== "x-quota-reset"));

const OTHER_DOCS: readonly HeaderDoc[] = [
  {
    name: "X-Request-Id",
    description: "Identifies this call in the server's logs; quote it when reporting a problem.",
    schema: { type: "string", minLength: 1 },
  },
  { name: "Retry-After", description: "Whole seconds to wait before retrying (at least 1).", schema: digits },
  { name: "WWW-Authenticate", description: "The authentication scheme to use: `Bearer`.", schema: { type: "string" } },
];

if (OTHER_DOCS[0]!.name.toLowerCase() !== REQUEST_ID_HEADER)
  throw new Error(`request id header is ${REQUEST_ID_HEADER}`);

/** components.headers: every documented header, by its conventional name. */
export function headerComponents(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const doc of [...OTHER_DOCS, ...LIMIT_HEADER_NAMES.map((n) => LIMIT_DOCS[n])]) {
    out[doc.name] = { description: doc.description, schema: doc.schema };
  }
  return out;
}

function ref(name: string, required: boolean): JsonSchema {
  // A Reference Object cannot carry `required`, so a required header is written out in full.
  if (!required) return { $ref: `#/components/headers/${name}` };
  const doc = [...OTHER_DOCS, ...Object.values(LIMIT_DOCS)].find((d) => d.name === name)!;
  return { description: doc.description, required: true, schema: doc.schema };
}

/**
 * The headers object of a response. `metered`: the operation counts toward the quota, so its
 * responses carry the limit headers (always on success; on errors once the call was admitted).
 */
export function responseHeaders(opts: {
  metered: boolean;
  success: boolean;
  status?: number;
}): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = { "X-Request-Id": ref("X-Request-Id", true) };
  if (opts.metered) {
    for (const n of LIMIT_HEADER_NAMES)
      out[LIMIT_DOCS[n].name] = ref(LIMIT_DOCS[n].name, opts.success && ALWAYS_ON_METERED.has(n));
  }
  if (opts.status === 429 || opts.status === 503) out["Retry-After"] = ref("Retry-After", opts.status === 429);
  if (opts.status === 401) out["WWW-Authenticate"] = ref("WWW-Authenticate", false);
  return out;
}
