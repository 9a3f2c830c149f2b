/**
 * Short queries that name a product ("is shopify worth it"), run against a real data directory at
 * several hybrid alphas: the share of the top 5 results that mention the product at all. A
 * sentence encoder as small as USE-lite places a rare product name poorly, so the vector side
 * answers such a query with posts about the words around the name ("worth it", "think about");
 * the keyword side finds the name. The judged Qatar Living questions (retrieval.ts) hold almost
 * no product names, so they cannot show this; this check, on the posts the service is for, is
 * why HYBRID_ALPHA stays below what those questions prefer. A mention is a crude relevance
 * label (a post can name the product in passing) but a result that never names it is almost
 * never about it.
 *
 * A second table asks about the same products as opinion questions ("what are people saying
 * about quickbooks", "opinions on shopify"), top 10 at the service's alpha, searched as written
 * and as SemanticSearch searches them (their subject alone, src/core/query-subject.ts).
 *
 * Run over a copy of a data directory (it opens the index as the service does):
 *   node --import tsx test/eval/named-product-queries.ts <dataDir>
 */
import { loadConfig } from "../../src/config.js";
import { alphaFor } from "../../src/core/hybrid-alpha.js";
import { keywordText } from "../../src/core/keyword-text.js";
import { querySubject } from "../../src/core/query-subject.js";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";

/** Queries as a user types them, each with the pattern a result must contain to mention its product. */
const NAMED_PRODUCT_QUERIES: readonly { query: string; mentions: RegExp }[] = [
  { query: "what do people think about quickbooks", mentions: /quick ?books/i },
  { query: "is shopify worth it", mentions: /shopify/i },
  { query: "mailchimp alternatives", mentions: /mail ?chimp/i },
  { query: "problems with godaddy hosting", mentions: /go ?daddy/i },
  { query: "wordpress plugin recommendations", mentions: /wordpress/i },
  { query: "salesforce pricing for a small team", mentions: /salesforce/i },
  { query: "stripe or paypal for payments", mentions: /stripe|paypal/i },
  { query: "dropbox sync problems", mentions: /dropbox/i },
  { query: "evernote for organizing notes", mentions: /evernote/i },
  { query: "trello for project management", mentions: /trello/i },
  { query: "heroku costs when scaling", mentions: /heroku/i },
  { query: "squarespace for a portfolio site", mentions: /squarespace/i },
  { query: "linode or digital ocean", mentions: /linode|digital ?ocean/i },
  { query: "photoshop alternatives", mentions: /photoshop/i },
  { query: "is the raspberry pi good for a home server", mentions: /raspberry/i },
  { query: "kickstarter campaign tips", mentions: /kickstarter/i },
  { query: "freshbooks invoicing", mentions: /freshbooks/i },
  { query: "google analytics not tracking", mentions: /google analytics|\bGA\b/i },
  { query: "ubuntu server setup help", mentions: /ubuntu/i },
  { query: "nexus 7 tablet review", mentions: /nexus/i },
];

const ALPHAS = [0, 0.3, 0.5, 0.7, 0.9, 1];

/** The products of {@link NAMED_PRODUCT_QUERIES} asked about as opinion questions, frames in turn. */
const OPINION_FRAMES = [
  "what are people saying about %s",
  "opinions on %s",
  "what do people think of %s",
  "thoughts on %s",
  "how do people feel about %s",
];
const OPINION_SUBJECTS: readonly [string, RegExp][] = [
  ["quickbooks", /quick ?books/i],
  ["shopify", /shopify/i],
  ["mailchimp", /mail ?chimp/i],
  ["godaddy", /go ?daddy/i],
  ["wordpress", /wordpress/i],
  ["salesforce", /salesforce/i],
  ["paypal", /paypal/i],
  ["dropbox", /dropbox/i],
  ["evernote", /evernote/i],
  ["trello", /trello/i],
  ["heroku", /heroku/i],
  ["squarespace", /squarespace/i],
  ["linode", /linode/i],
  ["photoshop", /photoshop/i],
  ["the raspberry pi", /raspberry/i],
  ["kickstarter", /kickstarter/i],
  ["freshbooks", /freshbooks/i],
  ["google analytics", /google analytics/i],
  ["ubuntu", /ubuntu/i],
  ["the nexus 7", /nexus/i],
];
const OPINION_QUERIES = OPINION_SUBJECTS.map(([subject, mentions], i) => ({
  query: OPINION_FRAMES[i % OPINION_FRAMES.length]!.replace("%s", subject),
  mentions,
}));

const dataDir = process.argv[2];
if (!dataDir) throw new Error("usage: named-product-queries.ts <dataDir>");
const config = loadConfig({ PATH: process.env.PATH, HOME: process.env.HOME, THREADSIGHT_DATA_DIR: dataDir });
const embedder = await startUseEmbedder(config.embedWorkers);
const index = new LanceDbIndex({ dir: LanceDbIndex.dirFor(dataDir), fusion: config.hybridFusion });
await index.open(embedder.model, embedder.dimensions);
try {
  const vectors = await embedder.embed(NAMED_PRODUCT_QUERIES.map((q) => q.query));
  const shares = new Map<number | "service", number[]>([...ALPHAS, "service" as const].map((a) => [a, []]));
  for (const [i, { query, mentions }] of NAMED_PRODUCT_QUERIES.entries()) {
    const text = keywordText(query);
    for (const alpha of [...ALPHAS, "service" as const]) {
      const hits = await index.hybrid({
        text,
        vector: vectors[i]!,
        alpha: alpha === "service" ? alphaFor(text, config) : alpha,
        limit: 5,
        offset: 0,
      });
      shares.get(alpha)!.push(hits.filter((h) => mentions.test(`${h.post.title}\n${h.post.content}`)).length / 5);
    }
  }
  console.log(`${NAMED_PRODUCT_QUERIES.length} queries naming a product, ${await index.count()} posts (${dataDir})`);
  console.log("| alpha | top 5 naming the product (mean) | queries with none of 5 |");
  console.log("| --- | --- | --- |");
  for (const a of [...ALPHAS, "service" as const]) {
    const s = shares.get(a)!;
    const name =
      a === "service"
        ? `as the service weighs it (${config.shortQueryAlpha} for one or two words, else ${config.hybridAlpha})`
        : String(a);
    console.log(
      `| ${name} | ${(s.reduce((x, y) => x + y, 0) / s.length).toFixed(2)} | ${s.filter((x) => x === 0).length} |`,
    );
  }

  console.log(
    `\n${OPINION_QUERIES.length} opinion questions about the same products, top 10 as the service weighs each (${config.shortQueryAlpha} for one or two words, else ${config.hybridAlpha})`,
  );
  console.log("| searched | top 10 naming the product (mean) | queries with none of 10 |");
  console.log("| --- | --- | --- |");
  for (const [name, textOf] of [
    ["as written", (q: string) => q],
    ["their subject (as SemanticSearch does)", querySubject],
  ] as const) {
    const texts = OPINION_QUERIES.map((q) => textOf(q.query));
    const qv = await embedder.embed(texts);
    const s: number[] = [];
    for (const [i, { mentions }] of OPINION_QUERIES.entries()) {
      const text = keywordText(texts[i]!);
      const hits = await index.hybrid({ text, vector: qv[i]!, alpha: alphaFor(text, config), limit: 10, offset: 0 });
      s.push(hits.filter((h) => mentions.test(`${h.post.title}\n${h.post.content}`)).length / 10);
    }
    console.log(
      `| ${name} | ${(s.reduce((x, y) => x + y, 0) / s.length).toFixed(2)} | ${s.filter((x) => x === 0).length} |`,
    );
  }
} finally {
  await index.close();
  await embedder.close();
}
