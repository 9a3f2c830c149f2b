"""Calls the service with Python grpcio (gRPC's C core) as test/grpc/python-grpcio.test.ts asks.

Reads one JSON object on stdin: {"target": "host:port", "calls": [{"path", "request_hex",
"metadata": [[k, v]...], "timeout", "compression": null|"gzip"|"deflate"}...]}. Messages go
as bytes (the test encodes and decodes them with the generated TypeScript types), so no Python
protobuf code is needed. Writes one JSON object per call on stdout: the status code's name, the
details text, the response bytes (hex) and the initial and trailing metadata (text values).
"""
import json
import sys

import grpc

COMPRESSION = {None: grpc.Compression.NoCompression, "gzip": grpc.Compression.Gzip, "deflate": grpc.Compression.Deflate}


def text_metadata(pairs):
    return {k: v for k, v in (pairs or ()) if not k.endswith("-bin")}


def main():
    job = json.load(sys.stdin)
    identity = lambda b: b  # noqa: E731 - the test does the (de)serialising
    with grpc.insecure_channel(job["target"]) as channel:
        for call in job["calls"]:
            method = channel.unary_unary(call["path"], request_serializer=identity, response_deserializer=identity)
            out = {"path": call["path"]}
            try:
                response, info = method.with_call(
                    bytes.fromhex(call["request_hex"]),
                    metadata=[tuple(p) for p in call.get("metadata", [])],
                    timeout=call.get("timeout", 10),
                    compression=COMPRESSION[call.get("compression")],
                )
                out.update(code="OK", details="", response_hex=response.hex(), initial=text_metadata(info.initial_metadata()), trailing=text_metadata(info.trailing_metadata()))
            except grpc.RpcError as err:
                out.update(code=err.code().name, details=err.details() or "", response_hex="", initial=text_metadata(err.initial_metadata()), trailing=text_metadata(err.trailing_metadata()))
            print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
