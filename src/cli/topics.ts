/**
 * `threadsight topics rebuild [--k N] [--seed N] [--json]`: re-discovers topics from every
 * post's vector in the configured index (LanceDB under THREADSIGHT_DATA_DIR, or WEAVIATE_URL),
 * replaces `<dataDir>/topics/model.json` atomically (ids kept where clusters persist), then
 * re-tags the posts whose topic changed. A running server keeps answering throughout and picks
 * the new model up within seconds. `threadsight topics list` prints the current model.
 * Exit codes: 0 done, 1 failed, 2 usage error.
 */
import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "../config.js";
import { openTrendStore } from "../index/open-trend-store.js";
import { loadTopicModel, topicModelPath } from "../topics/model-file.js";
import { rebuildTopics } from "../topics/rebuild.js";
import { hasTheme } from "../topics/topic-model.js";

/** A share as a percentage with one decimal. */
const pct = (share: number): string => `${(share * 100).toFixed(1)}%`;

const HELP = `usage:
  threadsight topics rebuild [--k N] [--seed N] [--json]
  threadsight topics list [--json]

rebuild  clusters every post's embedding into topics, writes <dataDir>/topics/model.json
         atomically and re-tags posts whose topic changed
  --k N      number of topics (default: about sqrt(posts / 2), 20..200)
  --seed N   seed of the clustering (default 42)
list     prints the topics of the current model
  --json     print one JSON object instead of text`;

function positiveInt(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1)
    throw new TypeError(`--${name} must be a positive whole number, got "${raw}"`);
  return Number(raw);
}

/** Entry point: `threadsight topics ...`. */
export async function run(argv: string[]): Promise<number> {
  let parsed;
  let k: number | undefined;
  let seed: number | undefined;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        k: { type: "string" },
        seed: { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    });
    k = positiveInt("k", parsed.values.k);
    seed = positiveInt("seed", parsed.values.seed);
  } catch (err) {
    process.stderr.write(`topics: ${(err as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  const [action, ...extra] = parsed.positionals;
  if (parsed.values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if ((action !== "rebuild" && action !== "list") || extra.length > 0) {
    process.stderr.write(`topics: expected "rebuild" or "list"\n\n${HELP}\n`);
    return 2;
  }
  try {
    const config = loadConfig();
    const file = topicModelPath(config.dataDir);
    if (action === "list") {
      const model = await loadTopicModel(file);
      if (!model) {
        process.stderr.write(`topics: no model at ${file}; run \`threadsight topics rebuild\`\n`);
        return 1;
      }
      const rows = model.topics.map((t) => ({
        id: t.id,
        label: t.label,
        size: t.size,
        keywords: t.keywords,
        label_coverage: t.labelCoverage ?? null,
        in_trends: hasTheme(t),
      }));
      const line = (r: (typeof rows)[number]) =>
        `${r.id.padEnd(6)} ${String(r.size).padStart(7)}  ${r.label}${r.in_trends ? "" : `  (no common theme: ${pct(r.label_coverage ?? 0)} of its posts use a label word; left out of ListTrends)`}`;
      process.stdout.write(
        parsed.values.json
          ? `${JSON.stringify({ version: model.version, createdAt: model.createdAt, topics: rows })}\n`
          : rows.map(line).join("\n") + "\n",
      );
      return 0;
    }
    const store = await openTrendStore(config);
    try {
      const started = Date.now();
      const report = await rebuildTopics(store, {
        file,
        ...(k !== undefined ? { k } : {}),
        ...(seed !== undefined ? { seed } : {}),
        onProgress: (m) => process.stderr.write(`topics: ${m}\n`),
      });
      const themeless = report.model.topics.filter((t) => !hasTheme(t)).length;
      const summary = {
        file,
        version: report.model.version,
        topics: report.model.topics.length,
        without_theme: themeless,
        posts: report.posts,
        kept_ids: report.keptIds,
        retagged: report.retagged,
        seconds: Math.round((Date.now() - started) / 1000),
      };
      const aside =
        themeless === 0
          ? ""
          : ` (${themeless} with no common theme, left out of ListTrends: see \`threadsight topics list\`)`;
      process.stdout.write(
        parsed.values.json
          ? `${JSON.stringify(summary)}\n`
          : `rebuilt ${summary.topics} topics${aside} (version ${summary.version}) from ${summary.posts} posts in ${summary.seconds} s; kept ${summary.kept_ids} ids, re-tagged ${summary.retagged} posts\n`,
      );
      return 0;
    } finally {
      await store.close();
    }
  } catch (err) {
    process.stderr.write(`topics: ${err instanceof ConfigError ? err.message : (err as Error).message}\n`);
    return 1;
  }
}
