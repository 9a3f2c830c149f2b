/**
 * ExportPosts throughput and the service's memory over a whole export: the service runs in its
 * own process over the kept index (serve-child.ts), and this process streams
 * `POST /api/v1/posts:export` as NDJSON with no filter (every post, oldest first), counting lines
 * as they arrive. The service's RSS (/proc/<pid>/status) is sampled every second, and the time
 * and RSS are recorded at each tenth of the posts, so a pass whose pages grow slower as it goes,
 * or whose memory grows with the posts sent, shows in the table. The export must end with its
 * `{"end":{"exported":N}}` line, N equal to the lines received and to the index's count.
 */
import { readFileSync } from "node:fs";
import { table } from "../eval/format.js";
import type { BackendTarget } from "./backends.js";
import { measuredWhen } from "./machine.js";
import type { StoredSection } from "./results-store.js";
import { spawnService } from "./service-process.js";
import { fixed, msSince } from "./stats.js";

const MIB = 2 ** 20;
/** The export must finish within this (a 1M-post export at the slowest rate seen is well under it). */
const EXPORT_CAP_MS = 90 * 60_000;

/** The pass at one tenth of the posts. */
export interface ExportMark {
  /** Posts received so far. */
  posts: number;
  /** Seconds since the request was sent. */
  seconds: number;
  /** Posts per second over this tenth alone. */
  rate: number;
  /** Service RSS at the mark, MiB. */
  rssMiB: number;
}

/** What the part stores. */
export interface ExportResult {
  backend: string;
  posts: number;
  replica?: boolean;
  exported: number;
  bytes: number;
  seconds: number;
  /** Posts per second over the whole export. */
  rate: number;
  firstByteMs: number;
  /** Service RSS before the request, and the least and most seen while it ran, MiB. */
  rssBeforeMiB: number;
  rssMinMiB: number;
  rssMaxMiB: number;
  marks: ExportMark[];
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** Runs the part against `target`. */
export async function benchExport(
  target: BackendTarget,
  opts: { replica?: boolean },
  log: (line: string) => void,
): Promise<ExportResult> {
  const svc = await spawnService(target.dataDir, target.env);
  try {
    const posts = svc.posts;
    // Settle after start-up (the embedder workers load), then take the baseline.
    await new Promise((r) => setTimeout(r, 3_000));
    const rssBeforeMiB = rssMiB(svc.pid);
    let rssMin = rssBeforeMiB;
    let rssMax = rssBeforeMiB;
    const sampler = setInterval(() => {
      const v = rssMiB(svc.pid);
      rssMin = Math.min(rssMin, v);
      rssMax = Math.max(rssMax, v);
    }, 1_000);
    const t0 = process.hrtime.bigint();
    try {
      const res = await fetch(`${svc.url}/api/v1/posts:export`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/x-ndjson",
          authorization: `Bearer ${svc.key}`,
        },
        body: "{}",
        signal: AbortSignal.timeout(EXPORT_CAP_MS),
      });
      if (res.status !== 200 || res.body === null)
        throw new Error(`export answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      const step = Math.max(1, Math.ceil(posts / 10));
      const marks: ExportMark[] = [];
      let firstByteMs = Number.NaN;
      let lines = 0;
      let bytes = 0;
      let rest = "";
      let last = "";
      let prev = { posts: 0, seconds: 0 };
      const decoder = new TextDecoder();
      const reader = res.body.getReader();
      for (;;) {
        const { done, value: chunk } = await reader.read();
        if (done) break;
        if (Number.isNaN(firstByteMs)) firstByteMs = msSince(t0);
        bytes += chunk.byteLength;
        const text = rest + decoder.decode(chunk, { stream: true });
        const parts = text.split("\n");
        rest = parts.pop()!;
        for (const line of parts) {
          if (line.startsWith('{"end"') || line.startsWith('{"error"')) {
            last = line;
            continue;
          }
          lines++;
          if (lines % step === 0) {
            const seconds = msSince(t0) / 1000;
            const rss = rssMiB(svc.pid);
            rssMax = Math.max(rssMax, rss);
            rssMin = Math.min(rssMin, rss);
            marks.push({ posts: lines, seconds, rate: (lines - prev.posts) / (seconds - prev.seconds), rssMiB: rss });
            prev = { posts: lines, seconds };
            log(`export ${target.backend}: ${lines} posts in ${fixed(seconds, 0)} s, service RSS ${fixed(rss, 0)} MiB`);
          }
        }
      }
      const seconds = msSince(t0) / 1000;
      const end = JSON.parse(last || "{}") as { end?: { exported?: number }; error?: unknown };
      if (end.end?.exported !== lines)
        throw new Error(`export ended without a matching end line: ${last.slice(0, 300)} after ${lines} posts`);
      if (lines !== posts) throw new Error(`export sent ${lines} posts, the index holds ${posts}`);
      return {
        backend: target.backend,
        posts,
        ...(opts.replica ? { replica: true } : {}),
        exported: lines,
        bytes,
        seconds,
        rate: lines / seconds,
        firstByteMs,
        rssBeforeMiB,
        rssMinMiB: rssMin,
        rssMaxMiB: rssMax,
        marks,
      };
    } finally {
      clearInterval(sampler);
    }
  } finally {
    await svc.stop();
  }
}

/** The report's explanation of the part. */
export const EXPORT_TEXT = [
  "test/bench/export.ts: the service in its own process over the kept index; the benchmark streams `POST /api/v1/posts:export`",
  "(NDJSON, no filter: every post, oldest first, keyset pages of 1,000 through SearchIndex.scan) and counts the lines. The",
  "service's RSS is sampled every second and at each tenth of the posts, where the rate of that tenth is also taken. The",
  "export must end with its end line and hold every post. Issue 51's goal: throughput in posts/s, and RSS flat over a",
  "1M-post export. Each page is read within a `created` window (src/index/scan-window.ts); why:",
  "[decision 0020](decisions/0020-exact-similarity-aggregates-on-weaviate.md).",
];

/** One stored run as markdown. */
export function exportSection(s: StoredSection<ExportResult>): string {
  const d = s.data;
  return [
    `### ${d.backend}, ${d.posts.toLocaleString("en-US")} posts${d.replica ? " (replicated)" : ""}`,
    "",
    `${measuredWhen(s.machine, s.durationS)}. ${d.exported.toLocaleString("en-US")} posts (${fixed(d.bytes / MIB, 0)} MiB) in ${fixed(d.seconds, 0)} s: **${fixed(d.rate, 0)} posts/s**; first byte after ${fixed(d.firstByteMs, 0)} ms. Service RSS ${fixed(d.rssBeforeMiB, 0)} MiB before, ${fixed(d.rssMinMiB, 0)}-${fixed(d.rssMaxMiB, 0)} MiB during.`,
    "",
    table(
      ["posts sent", "seconds", "posts/s in this tenth", "service RSS MiB"],
      d.marks.map((m) => [m.posts.toLocaleString("en-US"), fixed(m.seconds, 0), fixed(m.rate, 0), fixed(m.rssMiB, 0)]),
    ),
  ].join("\n");
}
