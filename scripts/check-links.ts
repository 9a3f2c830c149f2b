/**
 * Checks every relative link in README.md, CHANGELOG.md and docs/**\/*.md: the file or folder it
 * names must exist, and a `#fragment` into a Markdown file must name one of its headings (as
 * GitHub makes anchors of them). Links to other sites are not fetched (the network here reaches
 * package registries only). Exits 1 listing each broken link as file:line.
 *
 * Usage: node --import tsx scripts/check-links.ts
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** One broken link. */
export interface BrokenLink {
  file: string;
  line: number;
  target: string;
  problem: string;
}

/** The Markdown files the checker reads, relative to the repository. */
export function markdownFiles(): string[] {
  const out = ["README.md", "CHANGELOG.md"].filter((f) => existsSync(path.join(ROOT, f)));
  const walk = (dir: string): void => {
    for (const name of readdirSync(path.join(ROOT, dir)).sort()) {
      const rel = path.join(dir, name);
      if (statSync(path.join(ROOT, rel)).isDirectory()) walk(rel);
      else if (name.endsWith(".md")) out.push(rel);
    }
  };
  walk("docs");
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_[\]()]/g, "")
    .replace(/[^\p{L}\p{N} -]/gu, "")
    .replace(/ /g, "-");
}

function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let inFence = false;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const m = !inFence && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = headingSlug(m[1] ?? "");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

const LINK_RE = /(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)|!\[[^\]]*\]\(([^)\s]+)\)/g;

/** Every broken relative link in the given files (relative to the repository, or absolute). */
export function brokenLinks(files: string[] = markdownFiles()): BrokenLink[] {
  const broken: BrokenLink[] = [];
  for (const rel of files) {
    const abs = path.isAbsolute(rel) ? rel : path.join(ROOT, rel);
    let inFence = false;
    readFileSync(abs, "utf8")
      .split("\n")
      .forEach((text, i) => {
        if (/^\s*(```|~~~)/.test(text)) inFence = !inFence;
        if (inFence) return;
        const line = text.replace(/`[^`]*`/g, "");
        for (const m of line.matchAll(LINK_RE)) {
          const target = m[1] ?? m[2] ?? "";
          if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, ...
          const [filePart = "", fragment] = target.split("#", 2);
          const dest = filePart === "" ? abs : path.resolve(path.dirname(abs), decodeURI(filePart));
          if (!existsSync(dest)) {
            broken.push({ file: rel, line: i + 1, target, problem: "no such file" });
            continue;
          }
          if (fragment && dest.endsWith(".md") && !anchorsOf(dest).has(fragment.toLowerCase())) {
            broken.push({ file: rel, line: i + 1, target, problem: "no such heading" });
          }
        }
      });
  }
  return broken;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const broken = brokenLinks();
  for (const b of broken) process.stderr.write(`${b.file}:${b.line}: ${b.target} (${b.problem})\n`);
  const files = markdownFiles().length;
  if (broken.length > 0) {
    process.stderr.write(`${broken.length} broken link(s) in ${files} Markdown files\n`);
    process.exit(1);
  }
  process.stdout.write(`every link resolves in ${files} Markdown files\n`);
}
