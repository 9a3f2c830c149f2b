/**
 * Converts a parsed JSON body into a request message, stricter than proto JSON where the
 * contract needs it: an unknown key is an error that names it (a typo like `limt` must not pass
 * silently), integers must be JSON numbers (not "10"), strings must be strings. Each error
 * names the field and the rule. `null` means "absent", as in proto JSON.
 */

import type { DescField, DescMessage, JsonValue, MessageShape } from "@bufbuild/protobuf";
import { fromJson, ScalarType } from "@bufbuild/protobuf";
import { AppError } from "../errors/app-error.js";
import { closest } from "./suggest.js";

const INT_RANGE: Partial<Record<ScalarType, [number, number]>> = {
  [ScalarType.INT32]: [-2147483648, 2147483647],
  [ScalarType.SINT32]: [-2147483648, 2147483647],
  [ScalarType.SFIXED32]: [-2147483648, 2147483647],
  [ScalarType.UINT32]: [0, 4294967295],
  [ScalarType.FIXED32]: [0, 4294967295],
};

/** A UTF-16 surrogate without its pair: text that cannot be encoded as UTF-8. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

function checkScalar(path: string, type: ScalarType, v: unknown): void {
  const range = INT_RANGE[type];
  if (range !== undefined) {
    if (typeof v !== "number" || !Number.isInteger(v)) {
      throw new AppError(
        "WRONG_TYPE",
        `${path} must be an integer (a JSON number), got ${typeName(v)}${typeof v === "number" ? ` ${v}` : ""}`,
        { field: path },
      );
    }
    if (v < range[0] || v > range[1]) {
      throw new AppError("OUT_OF_RANGE", `${path} must fit in a 32-bit integer, got ${v}`, { field: path });
    }
    return;
  }
  switch (type) {
    case ScalarType.STRING:
      if (typeof v !== "string")
        throw new AppError("WRONG_TYPE", `${path} must be a string, got ${typeName(v)}`, { field: path });
      if (LONE_SURROGATE.test(v)) {
        throw new AppError("INVALID_ARGUMENT", `${path} must be valid Unicode text`, { field: path });
      }
      return;
    case ScalarType.BOOL:
      if (typeof v !== "boolean")
        throw new AppError("WRONG_TYPE", `${path} must be true or false, got ${typeName(v)}`, { field: path });
      return;
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      if (typeof v !== "number")
        throw new AppError("WRONG_TYPE", `${path} must be a number, got ${typeName(v)}`, { field: path });
      return;
    default:
      // 64-bit integers and bytes keep proto JSON's own (string) encoding; fromJson checks them.
      return;
  }
}

function unknownField(key: string, schema: DescMessage, prefix: string): AppError {
  const names = schema.fields.map((f) => f.name);
  const best = closest(key, names, 2);
  const hint = best !== undefined ? ` (did you mean "${best}"?)` : "";
  const allowed = names.length > 0 ? `; allowed fields: ${names.join(", ")}` : "; this request takes no fields";
  return new AppError("UNKNOWN_FIELD", `unknown field "${prefix}${key}"${hint}${allowed}`, {
    field: `${prefix}${key}`,
  });
}

/** Our own nested messages (PostFilter) are checked field by field like the request itself; well-known types are left to fromJson. */
function isOwnMessage(field: DescField): field is DescField & { fieldKind: "message" } {
  return field.fieldKind === "message" && field.message.typeName.startsWith("threadsight.");
}

function checkField(field: DescField, v: unknown, prefix: string): JsonValue {
  const path = `${prefix}${field.name}`;
  switch (field.fieldKind) {
    case "scalar":
      checkScalar(path, field.scalar, v);
      return v as JsonValue;
    case "list":
      if (!Array.isArray(v))
        throw new AppError("WRONG_TYPE", `${path} must be an array, got ${typeName(v)}`, { field: path });
      if (field.listKind === "scalar") v.forEach((item, i) => checkScalar(`${path}[${i}]`, field.scalar, item));
      return v as JsonValue;
    case "message":
      if (isOwnMessage(field)) return cleanObject(field.message, v, `${path}.`);
      return v as JsonValue;
    default:
      // Enums and maps are left to fromJson (no request uses them today).
      return v as JsonValue;
  }
}

/** The object `body` with every key checked against `schema` and renamed to its proto name. */
function cleanObject(schema: DescMessage, body: unknown, prefix: string): Record<string, JsonValue> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    const what = prefix === "" ? "the request body" : prefix.slice(0, -1);
    throw new AppError("WRONG_TYPE", `${what} must be a JSON object, got ${typeName(body)}`, {
      field: prefix.slice(0, -1),
    });
  }
  const byName = new Map<string, DescField>();
  for (const f of schema.fields) {
    byName.set(f.name, f);
    byName.set(f.jsonName, f);
  }
  const cleaned: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(body)) {
    const field = byName.get(key);
    if (field === undefined) throw unknownField(key, schema, prefix);
    if (value === null) continue;
    cleaned[field.name] = checkField(field, value, prefix);
  }
  return cleaned;
}

/** Parses `body` (already JSON-decoded) into a message of `schema`, or throws an AppError. */
export function strictFromJson<Desc extends DescMessage>(schema: Desc, body: unknown): MessageShape<Desc> {
  const cleaned = cleanObject(schema, body === undefined ? {} : body, "");
  try {
    return fromJson(schema, cleaned, { ignoreUnknownFields: false });
  } catch (cause) {
    throw new AppError(
      "INVALID_ARGUMENT",
      `the request body does not match ${schema.name}: ${(cause as Error).message}`,
      {},
      { cause },
    );
  }
}
