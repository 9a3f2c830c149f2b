/**
 * The schema a server exposes through reflection: every file that declares a served service,
 * plus everything those files import, indexed by file name and by every fully-qualified symbol
 * a reflection client may ask about. Built once at start-up from the generated descriptors.
 */

import type { DescFile, DescMessage, DescService, FileRegistry } from "@bufbuild/protobuf";
import { create, createFileRegistry, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";

/** Thrown by lookups for a file, symbol or extension the index does not hold. */
export class DescriptorNotFoundError extends Error {
  override readonly name = "DescriptorNotFoundError";
}

/** Read-only view of the served schema, shared by all reflection streams. */
export class DescriptorIndex {
  /** Registry over exactly the files that reflection serves. */
  readonly registry: FileRegistry;
  private readonly serviceNames: readonly string[];
  /** Every nameable element (types, members, enum values) -> the file declaring it. */
  private readonly symbols = new Map<string, DescFile>();
  private readonly encoded = new Map<string, Uint8Array>();

  /**
   * @param services the services being served; their files and all transitive imports
   *   become visible through reflection. Duplicates are ignored.
   * @param extraFiles files no service imports but responses still reference by name, such as
   *   the google.rpc error-detail types packed into `grpc-status-details-bin`; served too.
   */
  constructor(services: readonly DescService[], extraFiles: readonly DescFile[] = []) {
    const unique = new Map(services.map((s) => [s.typeName, s] as const));
    this.serviceNames = [...unique.keys()].sort();
    const files = importOrder([...[...unique.values()].map((s) => s.file), ...extraFiles]);
    // Rebuilding through a FileDescriptorSet proves the set is closed under imports: a
    // missing dependency fails here, at start-up, instead of in a client.
    this.registry = createFileRegistry(create(FileDescriptorSetSchema, { file: files.map((f) => f.proto) }));
    for (const file of this.registry.files) indexFile(file, this.symbols);
  }

  /** Fully-qualified names of the served services, sorted. */
  listServices(): readonly string[] {
    return this.serviceNames;
  }

  /** The file with this import path, e.g. `threadsight/v1/search.proto`. */
  fileByName(fileName: string): DescFile {
    const file = this.registry.getFile(fileName);
    if (!file) throw new DescriptorNotFoundError(`file "${fileName}" is not known to this server`);
    return file;
  }

  /**
   * The file declaring a symbol: a service, method, message, enum, enum value, field, oneof or
   * extension, by fully-qualified name (a leading dot is tolerated).
   */
  fileContainingSymbol(symbol: string): DescFile {
    const name = symbol.startsWith(".") ? symbol.slice(1) : symbol;
    const file = this.symbols.get(name);
    if (!file) throw new DescriptorNotFoundError(`symbol "${name}" is not known to this server`);
    return file;
  }

  /** The file declaring extension number `fieldNumber` of message `extendee`. */
  fileContainingExtension(extendee: string, fieldNumber: number): DescFile {
    const message = this.message(extendee);
    const extension = this.registry.getExtensionFor(message, fieldNumber);
    if (!extension) {
      throw new DescriptorNotFoundError(
        `no extension of "${message.typeName}" with field number ${fieldNumber} is known to this server`,
      );
    }
    return extension.file;
  }

  /** Field numbers of all known extensions of a message, ascending; empty when it has none. */
  extensionNumbers(extendee: string): { typeName: string; numbers: number[] } {
    const message = this.message(extendee);
    const numbers: number[] = [];
    for (const type of this.registry) {
      if (type.kind === "extension" && type.extendee.typeName === message.typeName) numbers.push(type.number);
    }
    return { typeName: message.typeName, numbers: numbers.sort((a, b) => a - b) };
  }

  /**
   * Serialized FileDescriptorProtos of `file` followed by its transitive imports, skipping
   * imports whose names are in `alreadySent` (and adding what it returns to that set), so one
   * reflection stream sends each file once. The requested file itself is always included.
   */
  encodeWithImports(file: DescFile, alreadySent: Set<string>): Uint8Array[] {
    const out: Uint8Array[] = [];
    const pending: DescFile[] = [file];
    const queued = new Set<string>([file.proto.name]);
    for (let next = pending.shift(); next; next = pending.shift()) {
      out.push(this.encode(next));
      alreadySent.add(next.proto.name);
      for (const dep of next.dependencies) {
        if (queued.has(dep.proto.name) || alreadySent.has(dep.proto.name)) continue;
        queued.add(dep.proto.name);
        pending.push(dep);
      }
    }
    return out;
  }

  private encode(file: DescFile): Uint8Array {
    let bytes = this.encoded.get(file.proto.name);
    if (!bytes) {
      bytes = toBinary(FileDescriptorProtoSchema, file.proto);
      this.encoded.set(file.proto.name, bytes);
    }
    return bytes;
  }

  private message(typeName: string): DescMessage {
    const name = typeName.startsWith(".") ? typeName.slice(1) : typeName;
    const message = this.registry.getMessage(name);
    if (!message) throw new DescriptorNotFoundError(`message type "${name}" is not known to this server`);
    return message;
  }
}

/** Files reachable from `roots` through imports, each after everything it imports. */
function importOrder(roots: readonly DescFile[]): DescFile[] {
  const ordered: DescFile[] = [];
  const visited = new Set<string>();
  const visit = (file: DescFile): void => {
    if (visited.has(file.proto.name)) return;
    visited.add(file.proto.name);
    for (const dep of file.dependencies) visit(dep);
    ordered.push(file);
  };
  for (const root of roots) visit(root);
  return ordered;
}

/**
 * Records every name protobuf scoping gives an element of `file`. Enum values live in the
 * scope that encloses their enum (C++ rules), so `pkg.Msg.Kind.VALUE` is named `pkg.Msg.VALUE`.
 */
function indexFile(file: DescFile, symbols: Map<string, DescFile>): void {
  const add = (name: string): void => {
    if (!symbols.has(name)) symbols.set(name, file);
  };
  const scopeOf = (parent: DescMessage | undefined): string => (parent ? parent.typeName : file.proto.package);
  const qualify = (scope: string, name: string): string => (scope ? `${scope}.${name}` : name);

  const addEnums = (enums: DescFile["enums"]): void => {
    for (const e of enums) {
      add(e.typeName);
      for (const v of e.values) add(qualify(scopeOf(e.parent), v.name));
    }
  };
  const addMessages = (messages: readonly DescMessage[]): void => {
    for (const m of messages) {
      add(m.typeName);
      for (const f of m.fields) add(`${m.typeName}.${f.name}`);
      // From the proto, so that synthetic oneofs of proto3 `optional` fields resolve too.
      for (const o of m.proto.oneofDecl) add(`${m.typeName}.${o.name}`);
      // Map entry types are real nested messages on the wire but absent from nestedMessages.
      for (const entry of m.proto.nestedType.filter((n) => n.options?.mapEntry)) {
        add(`${m.typeName}.${entry.name}`);
        for (const f of entry.field) add(`${m.typeName}.${entry.name}.${f.name}`);
      }
      addEnums(m.nestedEnums);
      for (const x of m.nestedExtensions) add(x.typeName);
      addMessages(m.nestedMessages);
    }
  };

  for (const s of file.services) {
    add(s.typeName);
    for (const m of s.methods) add(`${s.typeName}.${m.name}`);
  }
  addMessages(file.messages);
  addEnums(file.enums);
  for (const x of file.extensions) add(x.typeName);
}
