/**
 * SSRF guard for webhooks: the host is resolved and every address checked at connect time, so
 * a name that resolves to a private, loopback or link-local address is refused however it is
 * spelled (and a DNS answer cannot change between check and connect: the socket uses the
 * address that was checked).
 */
import dns from "node:dns";
import type { LookupFunction } from "node:net";
import net from "node:net";

/** True for addresses a webhook must not reach unless the operator allows it. */
export function isPrivateAddress(address: string): boolean {
  if (net.isIPv4(address)) {
    const [a, b] = address.split(".").map(Number) as [number, number];
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 100 && b >= 64 && b < 128) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b < 32) ||
      (a === 192 && b === 168) ||
      a >= 224
    );
  }
  const v6 = address.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(v6);
  if (mapped !== null) return isPrivateAddress(mapped[1]!);
  return v6 === "::" || v6 === "::1" || /^f[cd]/.test(v6) || /^fe[89ab]/.test(v6) || /^ff/.test(v6);
}

/** A socket lookup that refuses private addresses unless `allowPrivate`. */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      const list = addresses as dns.LookupAddress[];
      const bad = list.find((a) => isPrivateAddress(a.address));
      if (!allowPrivate && bad !== undefined) {
        return callback(
          Object.assign(
            new Error(
              `${hostname} resolves to ${bad.address}, a private or loopback address; webhooks may not reach it (operators: MONITORS_ALLOW_PRIVATE_WEBHOOKS)`,
            ),
            { code: "EPRIVATE" },
          ),
          "",
          0,
        );
      }
      const first = list[0]!;
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, first.address, first.family);
    });
  };
}
