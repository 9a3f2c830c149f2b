/**
 * Checks real REST responses against the generated OpenAPI document: the body against the
 * response schema of (path, method, status) and the headers against the response's header
 * objects (required ones present, every documented one well-formed). Uses Ajv's 2020-12
 * dialect, the JSON Schema dialect of OpenAPI 3.1, in strict mode.
 */
import { readFileSync } from "node:fs";
import type { ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { OPENAPI_FILE } from "../../src/openapi/openapi-file.js";

type Json = { [key: string]: any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- a parsed OpenAPI document

const ROOT = "urn:threadsight:openapi";

/** The committed document, parsed. */
export function loadOpenApiDocument(): Json {
  return JSON.parse(readFileSync(OPENAPI_FILE, "utf8")) as Json;
}

/** Rewrites local component refs so they resolve inside the Ajv root schema. */
function rebase(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rebase);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === "$ref" && typeof v === "string" ? v.replace("#/components/schemas/", `${ROOT}#/$defs/`) : rebase(v),
    ]),
  );
}

function resolve(doc: Json, node: Json): Json {
  let out = node;
  while (typeof out.$ref === "string") {
    out = (out.$ref as string)
      .slice(2)
      .split("/")
      .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce((acc: Json, key) => acc[key], doc);
  }
  return out;
}

/** Validates responses against one document. */
export class OpenApiResponses {
  readonly #doc: Json;
  readonly #ajv: Ajv2020;
  readonly #compiled = new Map<object, ValidateFunction>();

  constructor(doc: Json) {
    this.#doc = doc;
    this.#ajv = new Ajv2020({ allErrors: true, strict: true });
    (addFormatsModule as unknown as (a: Ajv2020) => void)(this.#ajv);
    // OpenAPI's numeric formats: annotations of the value's width.
    this.#ajv.addFormat("int32", {
      type: "number",
      validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
    });
    this.#ajv.addFormat("double", { type: "number", validate: () => true });
    this.#ajv.addFormat("float", { type: "number", validate: () => true });
    this.#ajv.addSchema({ $id: ROOT, $defs: rebase(doc.components.schemas) });
  }

  #validator(schema: Json): ValidateFunction {
    let v = this.#compiled.get(schema);
    if (v === undefined) {
      v = this.#ajv.compile(rebase(schema) as Json);
      this.#compiled.set(schema, v);
    }
    return v;
  }

  /**
   * The documented response of `method path` for `status`: the operation's own, or for 404/405
   * (answered outside any operation) the status's component.
   */
  response(path: string, method: string, status: number): Json | undefined {
    const op = this.#doc.paths[path]?.[method.toLowerCase()] as Json | undefined;
    const res = op?.responses?.[String(status)] ?? this.#doc.components.responses[`Error${status}`];
    return res === undefined ? undefined : resolve(this.#doc, res);
  }

  /**
   * Every way a 200 Server-Sent Events response breaks the document: its content type and
   * headers against the documented 200, and each `data:` object against the component schema
   * the 200's description names (`[Name](#/components/schemas/Name)`).
   */
  checkEventStream(path: string, method: string, headers: Headers, data: readonly unknown[]): string[] {
    const documented = this.response(path, method, 200);
    if (documented === undefined) return [`${method} ${path}: status 200 is not documented`];
    const problems: string[] = [];
    const type = headers.get("content-type") ?? "";
    if (documented.content?.["text/event-stream"] === undefined) problems.push("200: no text/event-stream documented");
    else if (!/^text\/event-stream(;|$)/.test(type)) problems.push(`content-type is "${type}", not text/event-stream`);
    const name = /\(#\/components\/schemas\/([A-Za-z0-9]+)\)/.exec(String(documented.description))?.[1];
    if (name === undefined) problems.push("200: the description names no schema for the data lines");
    else {
      const validate = this.#validator({ $ref: `#/components/schemas/${name}` });
      data.forEach((d, i) => {
        if (!validate(d)) problems.push(`data[${i}]: ${this.#ajv.errorsText(validate.errors, { dataVar: "data" })}`);
      });
    }
    return [...problems, ...this.#headerProblems(documented, headers)];
  }

  #headerProblems(documented: Json, headers: Headers): string[] {
    const problems: string[] = [];
    for (const [name, header] of Object.entries((documented.headers ?? {}) as Json)) {
      const h = resolve(this.#doc, header as Json);
      const value = headers.get(name);
      if (value === null) {
        if (h.required === true) problems.push(`required header ${name} is missing`);
        continue;
      }
      const validate = this.#validator(h.schema as Json);
      if (!validate(value)) problems.push(`header ${name}="${value}": ${this.#ajv.errorsText(validate.errors)}`);
    }
    return problems;
  }

  /** Every way the response breaks the document; empty when it conforms. */
  check(path: string, method: string, res: { status: number; headers: Headers; body: unknown }): string[] {
    const documented = this.response(path, method, res.status);
    if (documented === undefined) return [`${method} ${path}: status ${res.status} is not documented`];
    const problems: string[] = [];
    const media = documented.content?.["application/json"];
    const type = res.headers.get("content-type") ?? "";
    if (media === undefined) problems.push(`${res.status}: no application/json content documented`);
    else if (!/^application\/json(;|$)/.test(type)) problems.push(`content-type is "${type}", not application/json`);
    else {
      const validate = this.#validator(media.schema as Json);
      if (!validate(res.body)) problems.push(`body: ${this.#ajv.errorsText(validate.errors, { dataVar: "body" })}`);
    }
    return [...problems, ...this.#headerProblems(documented, res.headers)];
  }
}
