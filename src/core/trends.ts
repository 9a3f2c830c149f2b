/**
 * ListTrends: resolve the window (end defaults to the newest day with posts), aggregate per
 * topic in the index, compare with the previous equal window and the topic's own baseline,
 * score, rank, and dress the top topics with labels, sample posts and trending keywords.
 * Formulas: core/trends/formulas.ts and core/trends/log-odds.ts. Knows nothing of HTTP or Connect.
 */
import { AppError } from "../errors/app-error.js";
import { postText } from "../topics/terms.js";
import type { TopicModel } from "../topics/topic-model.js";
import { hasTheme } from "../topics/topic-model.js";
import type { SubforumCount, TimeWindow, TopicPost, TopicWindowStats, TrendStore } from "../topics/trend-store.js";
import { engagement } from "../topics/trend-store.js";
import type { DayRange } from "./request-rules.js";
import { dayStart, resolveLimit, resolveTrendsRange } from "./request-rules.js";
import { acceleration, BASELINE_WINDOWS, growthRate, median, trendScore } from "./trends/formulas.js";
import { trendingKeywords } from "./trends/log-odds.js";
import { termRarity } from "./trends/rarity.js";
import { TermCache } from "./trends/term-cache.js";

/** Sample posts per trend. */
export const SAMPLE_POSTS = 5;
/** Most engaged posts per window whose terms feed trending_keywords (bounded: tokenizing is the costliest step). */
export const KEYWORD_POSTS = 100;
/** Characters of a post's body that feed trending_keywords. */
export const KEYWORD_BODY_CHARS = 1000;
/** Trending keywords per trend. */
export const TRENDING_KEYWORDS = 5;
/**
 * Fewest posts a topic needs in the window to be ranked. A topic of one or two posts has no
 * volume to speak of, yet its engagement per post and its rise from nothing could rank it among
 * a month's first (decision 0008).
 */
export const MIN_TREND_POSTS = 3;

/** The ListTrends message while no topic model exists: it names the command that builds one. */
export const TOPICS_NOT_BUILT_MESSAGE =
  "no topic model has been built for this index yet: run `threadsight topics rebuild` (an ingest that ends with enough posts builds one too)";

/** What trends need from the rest of the system. */
export interface TrendsDeps {
  store: TrendStore;
  /** The current topic model (labels and background terms); undefined before the first build, when list() answers TOPICS_NOT_BUILT. */
  topics: () => Promise<TopicModel | undefined>;
  /** Clock for the default window of an empty index. */
  now?: () => number;
}

/** A ListTrends request after transport decoding. */
export interface TrendsParams {
  startDate: string;
  endDate: string;
  limit: number | undefined;
}

/** One ranked topic. */
export interface TrendItem {
  topicId: string;
  label: string;
  postCount: number;
  totalUpvotes: number;
  totalComments: number;
  avgSentiment: number;
  topSubforums: string[];
  trendingKeywords: string[];
  samplePosts: TopicPost[];
  trendScore: number;
  growthRate: number;
}

/** The outcome of a ListTrends call. */
export interface TrendsOutcome {
  trends: TrendItem[];
  range: DayRange;
}

interface Scored {
  stats: TopicWindowStats;
  previous: number;
  growth: number;
  score: number;
}

/** The trends use case. */
export class TrendsCore {
  /** Keyword posts' term counts, kept across calls (the same windows are asked again and again). */
  private readonly terms = new TermCache();

  constructor(private readonly deps: TrendsDeps) {}

  /** Topics active in the window, highest trend_score first. */
  async list(params: TrendsParams, signal: AbortSignal): Promise<TrendsOutcome> {
    const limit = resolveLimit(params.limit);
    const latest = params.endDate === "" ? await this.deps.store.latestCreated(signal) : undefined;
    const latestDay = dayStart(latest ?? (this.deps.now ?? Date.now)());
    const range = resolveTrendsRange(params.startDate, params.endDate, latestDay);
    const window: TimeWindow = { from: range.from, to: range.to };
    const len = range.to - range.from + 1;
    // Checked after the request's own rules, so a bad window is still reported as such. Without a
    // model every post is untagged and any answer would be an empty success that reads as "nothing
    // is trending" rather than "nothing was built".
    const model = await this.deps.topics();
    if (model === undefined) throw new AppError("TOPICS_NOT_BUILT", TOPICS_NOT_BUILT_MESSAGE);
    const { stats, baselines } = await this.deps.store.trendInputs(window, BASELINE_WINDOWS, signal);
    const topics = new Map(model.topics.map((t) => [t.id, t]));
    // A catch-all cluster is no theme to report as rising (topic-model.ts, hasTheme).
    const themed = stats.filter((s) => {
      const topic = topics.get(s.topicId);
      return s.count >= MIN_TREND_POSTS && (topic === undefined || hasTheme(topic));
    });
    const ranked = rank(themed, baselines).slice(0, limit);
    const previousWindow: TimeWindow = { from: range.from - len, to: range.from - 1 };
    const weight = termRarity(model);
    const withPrevious = ranked.filter((r) => r.previous > 0).map((r) => r.stats.topicId);
    // Keyword posts of the window and of the previous one, in one store call.
    const [nowTop = new Map<string, TopicPost[]>(), prevTop = new Map<string, TopicPost[]>()] =
      ranked.length > 0
        ? await this.deps.store.topPostsFor(
            [
              // The counts are the aggregates just read (the previous window is the last baseline).
              {
                topicIds: ranked.map((r) => r.stats.topicId),
                window,
                counts: new Map(ranked.map((r) => [r.stats.topicId, r.stats.count])),
              },
              {
                topicIds: withPrevious,
                window: previousWindow,
                counts: new Map(ranked.map((r) => [r.stats.topicId, r.previous])),
              },
            ],
            KEYWORD_POSTS,
            signal,
          )
        : [];
    const trends = ranked.map((r): TrendItem => {
      const id = r.stats.topicId;
      const nowPosts = nowTop.get(id) ?? [];
      const prevPosts = prevTop.get(id) ?? [];
      const topic = topics.get(id);
      const background = new Map(topic?.terms ?? []);
      const keywords = trendingKeywords(this.termCounts(nowPosts), this.termCounts(prevPosts), background, {
        top: TRENDING_KEYWORDS,
        weight,
      });
      return {
        topicId: id,
        label: topic?.label ?? id,
        postCount: r.stats.count,
        totalUpvotes: r.stats.upvotes,
        totalComments: r.stats.comments,
        avgSentiment: clampSentiment(r.stats.meanSentiment),
        topSubforums: r.stats.topSubforums.map((s: SubforumCount) => s.subforum),
        trendingKeywords: keywords.map((k) => k.term),
        samplePosts: nowPosts.slice(0, SAMPLE_POSTS),
        trendScore: r.score,
        growthRate: r.growth,
      };
    });
    return { trends, range };
  }

  /** Per term, how many of `posts` use it (trendingKeywords' counts; see TermCache). */
  private termCounts(posts: readonly TopicPost[]): Map<string, number> {
    const counts = new Map<string, number>();
    for (const p of posts) this.terms.addTo(p.id, postText(p.title, p.content, KEYWORD_BODY_CHARS), counts);
    return counts;
  }
}

/** Scores and orders topics (pure; exported for tests): trend_score desc, then post_count desc, then id. */
export function rank(stats: readonly TopicWindowStats[], baselines: ReadonlyMap<string, readonly number[]>): Scored[] {
  const active = stats.filter((s) => s.count > 0 && s.topicId !== "");
  const perPost = (s: TopicWindowStats) => engagement(s) / s.count;
  const typicalCount = median(active.map((s) => s.count));
  const typicalEngagement = median(active.map(perPost));
  const observed = observedWindows(baselines);
  const scored = active.map((s): Scored => {
    const history = [...(baselines.get(s.topicId) ?? [])];
    while (history.length < BASELINE_WINDOWS) history.unshift(0);
    const previous = history[history.length - 1] ?? 0;
    const z = acceleration(
      s.count,
      history.filter((_, i) => observed[i]),
    );
    return {
      stats: s,
      previous,
      growth: growthRate(s.count, previous),
      score: trendScore({ count: s.count, engagementPerPost: perPost(s), z, typicalCount, typicalEngagement }),
    };
  });
  scored.sort(
    (a, b) => b.score - a.score || b.stats.count - a.stats.count || (a.stats.topicId < b.stats.topicId ? -1 : 1),
  );
  return scored;
}

/**
 * Which of the baseline windows (oldest first, BASELINE_WINDOWS of them) the store has any
 * topic's posts in. A window with none lies before the data begins, or in a gap of it (a dump
 * that is missing): it says nothing about a topic's usual volume, and read as zeros it gave every
 * topic of the first windows of a corpus the maximum acceleration (the Hacker News corpus's
 * first four months all scored 96.4-98.0, a topic's 42 posts "surging" like its 84).
 */
function observedWindows(baselines: ReadonlyMap<string, readonly number[]>): boolean[] {
  const observed = new Array<boolean>(BASELINE_WINDOWS).fill(false);
  for (const counts of baselines.values()) {
    const offset = BASELINE_WINDOWS - counts.length;
    counts.forEach((c, i) => {
      if (c > 0 && offset + i >= 0) observed[offset + i] = true;
    });
  }
  return observed;
}

function clampSentiment(x: number): number {
  return Number.isFinite(x) ? Math.max(-1, Math.min(1, x)) : 0;
}
