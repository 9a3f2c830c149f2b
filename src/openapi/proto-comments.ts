/**
 * Proto comments by full name. The descriptors embedded in gen/ are stripped of source info,
 * so the generator reads the comments from a `buf build` image of proto/ instead and looks them
 * up here by name: "threadsight.v1.Lead", "threadsight.v1.Lead.lead_type",
 * "threadsight.v1.LeadService", "threadsight.v1.LeadService.FindLeads".
 */
import type { DescriptorProto, FileDescriptorProto, FileDescriptorSet } from "@bufbuild/protobuf/wkt";

/** Comment text by full name; undefined when the element has no leading comment. */
export type CommentLookup = (fullName: string) => string | undefined;

// Field numbers in descriptor.proto that make up source-info paths.
const FILE_MESSAGE_TYPE = 4;
const FILE_SERVICE = 6;
const MESSAGE_FIELD = 2;
const MESSAGE_NESTED_TYPE = 3;
const SERVICE_METHOD = 2;

/** Proto comment text as prose: each line's leading space dropped, lines joined into paragraphs. */
export function commentText(raw: string): string {
  const paragraphs: string[][] = [[]];
  for (const line of raw.split("\n").map((l) => l.trim())) {
    if (line === "") {
      if (paragraphs.at(-1)!.length > 0) paragraphs.push([]);
    } else {
      paragraphs.at(-1)!.push(line);
    }
  }
  return paragraphs
    .filter((p) => p.length > 0)
    .map((p) => p.join(" "))
    .join("\n\n");
}

function indexFile(file: FileDescriptorProto, out: Map<string, string>): void {
  const byPath = new Map<string, string>();
  for (const loc of file.sourceCodeInfo?.location ?? []) {
    if (loc.leadingComments !== undefined && loc.leadingComments.trim() !== "")
      byPath.set(loc.path.join("."), commentText(loc.leadingComments));
  }
  const put = (name: string, path: number[]): void => {
    const text = byPath.get(path.join("."));
    if (text !== undefined) out.set(name, text);
  };
  const prefix = file.package === "" ? "" : `${file.package}.`;
  const visit = (msg: DescriptorProto, name: string, path: number[]): void => {
    put(name, path);
    msg.field.forEach((f, i) => put(`${name}.${f.name}`, [...path, MESSAGE_FIELD, i]));
    msg.nestedType.forEach((n, i) => visit(n, `${name}.${n.name}`, [...path, MESSAGE_NESTED_TYPE, i]));
  };
  file.messageType.forEach((m, i) => visit(m, prefix + m.name, [FILE_MESSAGE_TYPE, i]));
  file.service.forEach((s, i) => {
    put(prefix + s.name, [FILE_SERVICE, i]);
    s.method.forEach((m, j) => put(`${prefix}${s.name}.${m.name}`, [FILE_SERVICE, i, SERVICE_METHOD, j]));
  });
}

/** Indexes the leading comments of every message, field, service and method in `set`. */
export function commentsOf(set: FileDescriptorSet): CommentLookup {
  const out = new Map<string, string>();
  for (const file of set.file) indexFile(file, out);
  return (name) => out.get(name);
}
