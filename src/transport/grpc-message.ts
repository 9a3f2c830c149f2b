/**
 * The `grpc-message` status text as the gRPC wire spec writes it: printable ASCII other than
 * '%' as is, every other UTF-8 byte as %XX. connect-es writes it with encodeURIComponent, which
 * also escapes ',', ':', '/', '?', '=' and the like; grpc-js reads it with decodeURI, which
 * leaves exactly those escapes in place, so a Node gRPC client saw "at most 3660 days%2C got
 * 9802". The spec's form reads the same through decodeURI, decodeURIComponent and grpc-go.
 */

const encoder = new TextEncoder();
const HEX = "0123456789ABCDEF";

/** Percent-encodes `text` for a grpc-message header or trailer, as the gRPC spec asks. */
export function encodeGrpcMessage(text: string): string {
  let plain = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x25) {
      plain = false;
      break;
    }
  }
  if (plain) return text;
  let out = "";
  for (const byte of encoder.encode(text)) {
    out +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${HEX[byte >> 4]}${HEX[byte & 15]}`;
  }
  return out;
}

/**
 * Rewrites connect-es's encoding of `trailer`'s grpc-message into the spec's; leaves a value
 * it cannot decode as it is.
 */
export function respecGrpcMessage(trailer: Headers): void {
  const value = trailer.get("grpc-message");
  if (value === null || !value.includes("%")) return;
  let text: string;
  try {
    text = decodeURIComponent(value);
  } catch {
    return;
  }
  trailer.set("grpc-message", encodeGrpcMessage(text));
}
