/**
 * Draws the posts of the hand-labelled lead set: every post of the three corpora (read as ingest
 * reads them) is put in a stratum (test/eval/lead-strata.ts: subforum group, the rule classifier's
 * candidate type, lead-score band), each stratum gets a share of the total proportional to the
 * square root of its size (at least one post; small strata such as buying-intent candidates of one
 * trade are over-drawn, the mass of non-leads under-drawn), and within a stratum the posts with the
 * smallest seeded hash of their id are taken. Rows are numbered in a seeded shuffled order.
 *
 * Writes post text only outside the repository (the labellers' sample, `--out`); into the repo it
 * writes ids and strata only (test/eval/labels/leads-strata.tsv).
 *
 *   node --import tsx scripts/sample-lead-posts.ts --out /path/to/sample.jsonl [--total 1600] [--seed s]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { createRuleLeadClassifier, type LeadDecision } from "../src/enrich/leads/rule-classifier.js";
import { readerFor } from "../src/ingest/formats.js";
import { openInput } from "../src/ingest/open-input.js";
import type { Post } from "../src/model/post.js";
import { PACKAGE_ROOT } from "../src/package-root.js";
import { LABELLED_CORPORA } from "../test/eval/labelled-posts.js";
import { apportion, hash32, splitOf, stratumOf } from "../test/eval/lead-strata.js";
import { dataPath } from "../test/eval/shared-data.js";

/** Characters of the body the labellers see. */
const BODY_CHARS = 700;

interface Candidate {
  post: Post;
  decision: LeadDecision;
  stratum: string;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      out: { type: "string" },
      total: { type: "string", default: "1600" },
      seed: { type: "string", default: "leads-s40" },
    },
  });
  if (!values.out) throw new Error("--out is required: the sample holds post text and must sit outside the repository");
  const total = Number(values.total);
  if (!Number.isInteger(total) || total < 1) throw new Error(`--total must be a positive integer, got ${values.total}`);
  const seed = values.seed!;
  const classifier = createRuleLeadClassifier();
  const strata = new Map<string, Candidate[]>();
  for (const [file, format] of LABELLED_CORPORA) {
    const input = await openInput(dataPath(file));
    for await (const item of readerFor(format)(input.bytes)) {
      if (!("post" in item)) continue;
      const decision = classifier.classify(item.post);
      const stratum = stratumOf(item.post, decision.leadType, decision.leadScore);
      const list = strata.get(stratum) ?? [];
      list.push({ post: item.post, decision, stratum });
      strata.set(stratum, list);
    }
  }
  const shares = apportion(new Map([...strata].map(([k, v]): [string, number] => [k, Math.sqrt(v.length)])), total);
  const drawn: Candidate[] = [];
  for (const [key, list] of [...strata].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const ranked = [...list].sort((a, b) => hash32(`${seed}:draw:${a.post.id}`) - hash32(`${seed}:draw:${b.post.id}`));
    drawn.push(...ranked.slice(0, shares.get(key)));
  }
  drawn.sort(
    (a, b) =>
      hash32(`${seed}:order:${a.post.id}`) - hash32(`${seed}:order:${b.post.id}`) || (a.post.id < b.post.id ? -1 : 1),
  );
  const lines = drawn.map((c, i) =>
    JSON.stringify({
      n: i + 1,
      id: c.post.id,
      split: splitOf(c.post.id),
      subforum: c.post.subforum,
      stratum: c.stratum,
      title: c.post.title,
      body: c.post.content.length > BODY_CHARS ? `${c.post.content.slice(0, BODY_CHARS)}…` : c.post.content,
      classifier: {
        leadType: c.decision.leadType,
        leadScore: c.decision.leadScore,
        targetProduct: c.decision.targetProduct,
        painPoint: c.decision.painPoint,
        industry: c.decision.industry,
      },
    }),
  );
  mkdirSync(path.dirname(values.out), { recursive: true });
  writeFileSync(values.out, `${lines.join("\n")}\n`);
  const strataFile = path.join(PACKAGE_ROOT, "test", "eval", "labels", "leads-strata.tsv");
  writeFileSync(
    strataFile,
    [
      `# row\tpost id\tstratum (subforum group/candidate type/score band) of the lead sample, seed ${seed}; sizes of every stratum below`,
      ...drawn.map((c, i) => `${i + 1}\t${c.post.id}\t${c.stratum}`),
      ...[...strata]
        .sort((a, b) => (a[0] < b[0] ? -1 : 1))
        .map(([k, v]) => `# size\t${k}\t${v.length}\t${shares.get(k)}`),
    ].join("\n") + "\n",
  );
  process.stdout.write(`${drawn.length} posts from ${strata.size} strata -> ${values.out}, ${strataFile}\n`);
}

await main();
