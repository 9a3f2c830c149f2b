/**
 * gRPC server reflection (grpc.reflection.v1 and v1alpha) for Connect-ES, answered from the
 * generated descriptors, so that `buf curl`, grpcurl and GUI clients work without a schema.
 * Both versions share one answering function; they differ only in their message types.
 */

import type { DescFile, DescService } from "@bufbuild/protobuf";
import { create } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { Code } from "@connectrpc/connect";
import type { ServerReflectionRequest as RequestV1 } from "../../gen/grpc/reflection/v1/reflection_pb.js";
import {
  ServerReflectionResponseSchema as ResponseSchemaV1,
  ServerReflection as ServerReflectionV1,
} from "../../gen/grpc/reflection/v1/reflection_pb.js";
import type { ServerReflectionRequest as RequestV1alpha } from "../../gen/grpc/reflection/v1alpha/reflection_pb.js";
import {
  ServerReflectionResponseSchema as ResponseSchemaV1alpha,
  ServerReflection as ServerReflectionV1alpha,
} from "../../gen/grpc/reflection/v1alpha/reflection_pb.js";
import { DescriptorIndex, DescriptorNotFoundError } from "./descriptor-index.js";

export { ServerReflectionV1, ServerReflectionV1alpha };

/** The lookup of a reflection request, in the shape both protocol versions share. */
export type ReflectionQuery =
  | { case: "fileByFilename"; value: string }
  | { case: "fileContainingSymbol"; value: string }
  | { case: "fileContainingExtension"; value: { containingType: string; extensionNumber: number } }
  | { case: "allExtensionNumbersOfType"; value: string }
  | { case: "listServices"; value: string }
  | { case: undefined; value?: undefined };

/** The answer to one lookup, in the shape both protocol versions share. */
export type ReflectionAnswer =
  | { case: "fileDescriptorResponse"; value: { fileDescriptorProto: Uint8Array[] } }
  | { case: "allExtensionNumbersResponse"; value: { baseTypeName: string; extensionNumber: number[] } }
  | { case: "listServicesResponse"; value: { service: { name: string }[] } }
  | { case: "errorResponse"; value: { errorCode: number; errorMessage: string } };

/** Connect implementations of both reflection versions, over one shared index. */
export interface ReflectionServices {
  /** Implementation of grpc.reflection.v1.ServerReflection. */
  readonly v1: ServiceImpl<typeof ServerReflectionV1>;
  /** Implementation of grpc.reflection.v1alpha.ServerReflection (older clients). */
  readonly v1alpha: ServiceImpl<typeof ServerReflectionV1alpha>;
  /** The schema being reflected; exposed for diagnostics and tests. */
  readonly index: DescriptorIndex;
}

/**
 * Builds reflection for the given served services. Both reflection services are always added
 * to the list, since whoever mounts these implementations serves them too.
 *
 * @param extraFiles files responses reference without any service importing them (error details).
 * @throws Error when the services' files do not form a closed set under imports.
 */
export function createReflectionServices(
  services: readonly DescService[],
  extraFiles: readonly DescFile[] = [],
): ReflectionServices {
  const index = new DescriptorIndex([...services, ServerReflectionV1, ServerReflectionV1alpha], extraFiles);
  return {
    index,
    v1: {
      async *serverReflectionInfo(requests: AsyncIterable<RequestV1>, ctx: HandlerContext) {
        const sent = new Set<string>();
        for await (const request of requests) {
          if (ctx.signal.aborted) return;
          yield create(ResponseSchemaV1, {
            validHost: request.host,
            originalRequest: request,
            messageResponse: answer(index, request.messageRequest, sent),
          });
        }
      },
    },
    v1alpha: {
      async *serverReflectionInfo(requests: AsyncIterable<RequestV1alpha>, ctx: HandlerContext) {
        const sent = new Set<string>();
        for await (const request of requests) {
          if (ctx.signal.aborted) return;
          yield create(ResponseSchemaV1alpha, {
            validHost: request.host,
            originalRequest: request,
            messageResponse: answer(index, request.messageRequest, sent),
          });
        }
      },
    },
  };
}

/**
 * Answers one lookup. Lookup failures become an `error_response` on the stream (the protocol's
 * way), never a failed call: one bad name must not end a client's session.
 *
 * @param sent names of files already sent on this stream; updated with what this answer sends.
 */
function answer(index: DescriptorIndex, query: ReflectionQuery, sent: Set<string>): ReflectionAnswer {
  try {
    switch (query.case) {
      case "fileByFilename":
        return files(index.encodeWithImports(index.fileByName(query.value), sent));
      case "fileContainingSymbol":
        return files(index.encodeWithImports(index.fileContainingSymbol(query.value), sent));
      case "fileContainingExtension": {
        const { containingType, extensionNumber } = query.value;
        return files(index.encodeWithImports(index.fileContainingExtension(containingType, extensionNumber), sent));
      }
      case "allExtensionNumbersOfType": {
        const { typeName, numbers } = index.extensionNumbers(query.value);
        return { case: "allExtensionNumbersResponse", value: { baseTypeName: typeName, extensionNumber: numbers } };
      }
      case "listServices":
        return {
          case: "listServicesResponse",
          value: { service: index.listServices().map((name) => ({ name })) },
        };
      case undefined:
        return error(
          Code.InvalidArgument,
          "the request sets none of file_by_filename, file_containing_symbol, file_containing_extension, " +
            "all_extension_numbers_of_type or list_services",
        );
    }
  } catch (cause) {
    if (cause instanceof DescriptorNotFoundError) return error(Code.NotFound, cause.message);
    throw cause;
  }
}

function files(fileDescriptorProto: Uint8Array[]): ReflectionAnswer {
  return { case: "fileDescriptorResponse", value: { fileDescriptorProto } };
}

// Connect's Code enum uses the gRPC status numbers, which is what error_code carries.
function error(code: Code, errorMessage: string): ReflectionAnswer {
  return { case: "errorResponse", value: { errorCode: code, errorMessage } };
}
