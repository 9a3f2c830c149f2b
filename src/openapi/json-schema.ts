/**
 * Proto messages as JSON Schema (2020-12, the dialect of OpenAPI 3.1), shaped exactly like the
 * gateway's JSON: proto field names (snake_case), `toJson` with `alwaysEmitImplicit`, so every
 * response field is present; 32-bit integers as JSON integers, 64-bit ones as strings,
 * Timestamps as RFC 3339 strings, enums by value name. Each message becomes one component
 * schema referenced by `$ref`, so clients and the portal's explorer see named types.
 */

import type { DescEnum, DescField, DescMessage } from "@bufbuild/protobuf";
import { ScalarType } from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence } from "@bufbuild/protobuf/wkt";
import type { FieldRule } from "./field-rules.js";
import type { CommentLookup } from "./proto-comments.js";

/** A JSON Schema object (or any nested JSON value inside one). */
export type JsonSchema = { [key: string]: unknown };

/** Whether a message is read from clients (request) or written to them (response). */
export type Role = "request" | "response";

/** Inputs of the conversion and the component schemas it collects. */
export interface SchemaContext {
  comments: CommentLookup;
  /** Rules for request fields, by field name, or by full name for one message's field. */
  requestRules: Readonly<Record<string, FieldRule>>;
  /** Rules for response fields, by full field name. */
  responseRules: Readonly<Record<string, FieldRule>>;
  /** Component schemas by name, in the order first referenced. */
  components: Map<string, JsonSchema>;
  /** Which message and role each component name stands for (names must not collide). */
  owners: Map<string, { typeName: string; role: Role }>;
  /** Rule keys that matched a field, to refuse rules that name nothing. */
  usedRules: Set<string>;
}

/** A fresh context. */
export function schemaContext(
  comments: CommentLookup,
  requestRules: SchemaContext["requestRules"],
  responseRules: SchemaContext["responseRules"],
): SchemaContext {
  return { comments, requestRules, responseRules, components: new Map(), owners: new Map(), usedRules: new Set() };
}

const INT32_TYPES = new Set([ScalarType.INT32, ScalarType.SINT32, ScalarType.SFIXED32]);
const UINT32_TYPES = new Set([ScalarType.UINT32, ScalarType.FIXED32]);

function scalarSchema(type: ScalarType): JsonSchema {
  if (INT32_TYPES.has(type)) return { type: "integer", format: "int32" };
  if (UINT32_TYPES.has(type)) return { type: "integer", minimum: 0, maximum: 4294967295 };
  switch (type) {
    case ScalarType.DOUBLE:
      return { type: "number", format: "double" };
    case ScalarType.FLOAT:
      return { type: "number", format: "float" };
    case ScalarType.BOOL:
      return { type: "boolean" };
    case ScalarType.STRING:
      return { type: "string" };
    case ScalarType.BYTES:
      return { type: "string", contentEncoding: "base64" };
    default:
      // 64-bit integers: proto JSON writes them as decimal strings (JSON numbers lose precision).
      return {
        type: "string",
        format: type === ScalarType.UINT64 || type === ScalarType.FIXED64 ? "uint64" : "int64",
        pattern: "^-?[0-9]+$",
      };
  }
}

function enumSchema(desc: DescEnum): JsonSchema {
  return { type: "string", enum: desc.values.map((v) => v.name) };
}

/** Well-known types with their own JSON forms. */
const WELL_KNOWN: Readonly<Record<string, JsonSchema>> = {
  "google.protobuf.Timestamp": { type: "string", format: "date-time" },
  // Proto JSON writes a field mask as one string of comma-separated lowerCamelCase paths.
  "google.protobuf.FieldMask": {
    type: "string",
    description: 'Comma-separated field paths in lowerCamelCase, e.g. "name,minRelevance".',
  },
  "google.protobuf.Duration": { type: "string", pattern: "^-?[0-9]+(\\.[0-9]{1,9})?s$" },
};

function messageSchema(ctx: SchemaContext, desc: DescMessage, role: Role): JsonSchema {
  const known = WELL_KNOWN[desc.typeName];
  if (known !== undefined) return { ...known };
  if (desc.typeName.startsWith("google.protobuf."))
    throw new Error(`${desc.typeName}: no JSON Schema mapping for this well-known type`);
  return { $ref: `#/components/schemas/${componentFor(ctx, desc, role)}` };
}

function valueSchema(ctx: SchemaContext, field: DescField, role: Role): JsonSchema {
  switch (field.fieldKind) {
    case "scalar":
      return scalarSchema(field.scalar);
    case "enum":
      return enumSchema(field.enum);
    case "message":
      return messageSchema(ctx, field.message, role);
    case "list": {
      const items =
        field.listKind === "scalar"
          ? scalarSchema(field.scalar)
          : field.listKind === "enum"
            ? enumSchema(field.enum)
            : messageSchema(ctx, field.message, role);
      return { type: "array", items };
    }
    case "map": {
      const values =
        field.mapKind === "scalar"
          ? scalarSchema(field.scalar)
          : field.mapKind === "enum"
            ? enumSchema(field.enum)
            : messageSchema(ctx, field.message, role);
      return { type: "object", additionalProperties: values };
    }
  }
}

/** A request field's rule is found by its full name first (one message's exception), then by its name. */
function ruleFor(ctx: SchemaContext, field: DescField, role: Role): FieldRule | undefined {
  const full = `${field.parent.typeName}.${field.name}`;
  const key = role === "request" && ctx.requestRules[full] === undefined ? field.name : full;
  const rule = (role === "request" ? ctx.requestRules : ctx.responseRules)[key];
  if (rule !== undefined) ctx.usedRules.add(`${role}:${key}`);
  return rule;
}

function fieldSchema(ctx: SchemaContext, field: DescField, role: Role, rule: FieldRule | undefined): JsonSchema {
  const schema: JsonSchema = { ...valueSchema(ctx, field, role), ...rule?.schema };
  if (rule?.items !== undefined) schema.items = { ...(schema.items as JsonSchema), ...rule.items };
  const comment = ctx.comments(`${field.parent.typeName}.${field.name}`);
  const extra = rule?.schema?.description;
  const description = [comment, extra].filter((d): d is string => typeof d === "string" && d !== "").join(" ");
  if (description !== "") schema.description = description;
  // Keywords in a stable, readable order: description first, then what the value must be.
  return Object.fromEntries(
    Object.entries(schema).sort(([a], [b]) => (a === "description" ? -1 : b === "description" ? 1 : 0)),
  );
}

/**
 * Whether a response always carries the field. Implicit-presence fields and lists are always
 * written (alwaysEmitImplicit); proto3 `optional` ones only when set. Message fields are always
 * set by our handlers (a post always has `created`), and the contract tests hold them to it.
 */
function alwaysInResponse(field: DescField): boolean {
  return !(field.fieldKind === "scalar" && field.presence === FeatureSet_FieldPresence.EXPLICIT);
}

/** Registers the component schema of `desc` (once) and returns its name. */
export function componentFor(ctx: SchemaContext, desc: DescMessage, role: Role): string {
  let name = desc.name;
  let owner = ctx.owners.get(name);
  if (owner !== undefined && owner.typeName === desc.typeName && owner.role !== role) {
    // A message sent in requests and echoed in responses (PostFilter: a search's filter and a
    // monitor's) needs two components, since required fields and rules differ by role.
    name = `${desc.name}${role === "response" ? "Output" : "Input"}`;
    owner = ctx.owners.get(name);
  }
  if (owner !== undefined) {
    if (owner.typeName !== desc.typeName)
      throw new Error(`component name ${name} would stand for both ${owner.typeName} and ${desc.typeName}`);
    return name;
  }
  ctx.owners.set(name, { typeName: desc.typeName, role });
  const placeholder: JsonSchema = {};
  ctx.components.set(name, placeholder);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of desc.fields) {
    const rule = ruleFor(ctx, field, role);
    properties[field.name] = fieldSchema(ctx, field, role, rule);
    if (role === "request" ? rule?.required === true : alwaysInResponse(field)) required.push(field.name);
  }
  const comment = ctx.comments(desc.typeName);
  Object.assign(placeholder, {
    ...(comment !== undefined ? { description: comment } : {}),
    type: "object",
    properties,
    ...(required.length > 0 ? { required } : {}),
    // Requests: the gateway refuses unknown fields by name. Responses: nothing beyond the proto.
    additionalProperties: false,
  });
  return name;
}

/** Throws when a rule names a field that no operation has (a renamed field, a typo). */
export function assertRulesUsed(ctx: SchemaContext): void {
  const unused = [
    ...Object.keys(ctx.requestRules).map((k) => `request:${k}`),
    ...Object.keys(ctx.responseRules).map((k) => `response:${k}`),
  ].filter((k) => !ctx.usedRules.has(k));
  if (unused.length > 0) throw new Error(`field rules that match no field: ${unused.join(", ")}`);
}
