/**
 * The document as `npm run generate` writes it: the services' generated descriptors plus the
 * proto comments from a `buf build` image of proto/ (the descriptors embedded in gen/ carry no
 * comments). Development-time only: it runs buf from node_modules, so the server never calls it.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { DescService } from "@bufbuild/protobuf";
import { fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { PACKAGE_ROOT } from "../package-root.js";
import { buildOpenApi, serializeOpenApi } from "./document.js";
import { commentsOf } from "./proto-comments.js";

function buf(args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(PACKAGE_ROOT, "node_modules/.bin/buf"), args, {
      cwd: PACKAGE_ROOT,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`buf ${args.join(" ")} exited ${code}: ${stderr}`)),
    );
  });
}

/** The serialized document for `services`, built from proto/ as it is now. */
export async function generateOpenApiText(services: readonly DescService[]): Promise<string> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), "threadsight-openapi-"));
  try {
    const image = path.join(tmp, "image.binpb");
    await buf(["build", "--as-file-descriptor-set", "-o", image]);
    const comments = commentsOf(fromBinary(FileDescriptorSetSchema, await readFile(image)));
    const { version } = JSON.parse(await readFile(path.join(PACKAGE_ROOT, "package.json"), "utf8")) as {
      version: string;
    };
    return serializeOpenApi(buildOpenApi({ services, comments, version }));
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
