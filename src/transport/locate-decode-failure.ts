/**
 * Says which field of a protobuf request could not be decoded. protobuf-es reports only the
 * symptom ("premature EOF", "not valid for encoding utf-8"); a client fixing its encoder needs
 * the field. This walks the top-level fields of the wire bytes against the message descriptor
 * and names the first one that is truncated, carries the wrong wire type or holds invalid UTF-8.
 */

import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { ScalarType } from "@bufbuild/protobuf";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Wire types protobuf allows for a field (packed lists accept both forms). */
function allowedWireTypes(field: DescField): WireType[] {
  switch (field.fieldKind) {
    case "message":
      return field.delimitedEncoding ? [WireType.StartGroup] : [WireType.LengthDelimited];
    case "map":
      return [WireType.LengthDelimited];
    case "enum":
      return [WireType.Varint];
    case "scalar":
      return [scalarWireType(field.scalar)];
    case "list":
      if (field.listKind === "message")
        return field.delimitedEncoding ? [WireType.StartGroup] : [WireType.LengthDelimited];
      if (field.listKind === "enum") return [WireType.Varint, WireType.LengthDelimited];
      return field.scalar === ScalarType.STRING || field.scalar === ScalarType.BYTES
        ? [WireType.LengthDelimited]
        : [scalarWireType(field.scalar), WireType.LengthDelimited];
  }
}

function scalarWireType(scalar: ScalarType): WireType {
  switch (scalar) {
    case ScalarType.STRING:
    case ScalarType.BYTES:
      return WireType.LengthDelimited;
    case ScalarType.DOUBLE:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return WireType.Bit64;
    case ScalarType.FLOAT:
    case ScalarType.FIXED32:
    case ScalarType.SFIXED32:
      return WireType.Bit32;
    default:
      return WireType.Varint;
  }
}

function isStringField(field: DescField): boolean {
  return (
    (field.fieldKind === "scalar" || (field.fieldKind === "list" && field.listKind === "scalar")) &&
    field.scalar === ScalarType.STRING
  );
}

/**
 * A sentence naming the first undecodable field of `bytes` as a `desc` message, or undefined
 * when every top-level field reads cleanly (the problem is then deeper, or not in the fields).
 */
export function locateDecodeFailure(desc: DescMessage, bytes: Uint8Array): string | undefined {
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const at = reader.pos;
    let fieldNo: number;
    let wireType: WireType;
    try {
      [fieldNo, wireType] = reader.tag();
    } catch {
      return `byte ${at} does not start a valid field tag (field numbers start at 1, wire types are 0-5)`;
    }
    const field = desc.fields.find((f) => f.number === fieldNo);
    const name = field ? `field ${field.name} (number ${fieldNo})` : `unknown field number ${fieldNo}`;
    if (field && !allowedWireTypes(field).includes(wireType)) {
      return `${name} has wire type ${wireType}, expected ${allowedWireTypes(field).join(" or ")}`;
    }
    try {
      if (field && isStringField(field) && wireType === WireType.LengthDelimited) {
        const value = reader.bytes();
        try {
          UTF8.decode(value);
        } catch {
          return `${name} is not valid UTF-8`;
        }
      } else {
        reader.skip(wireType, fieldNo);
      }
    } catch {
      return `${name} at byte ${at} is truncated (its length runs past the end of the message)`;
    }
  }
  return undefined;
}
