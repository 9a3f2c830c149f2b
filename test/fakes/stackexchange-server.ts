/**
 * A faithful local stand-in for the Stack Exchange API 2.3, serving real questions from the
 * startups.stackexchange corpus. Shapes follow api.stackexchange.com/docs: every answer is the
 * common wrapper (`items`, `has_more`, `quota_max`, `quota_remaining`, and `backoff` when the
 * method is being throttled; docs/wrapper), `/2.3/questions` takes `site, sort=creation, order,
 * fromdate, page, pagesize, filter, key` (docs/questions), and question objects carry
 * `question_id, title, body (filter withbody), owner {display_name, ...}, score, answer_count,
 * creation_date, link, tags`. Errors are HTTP 400 with `{error_id, error_message, error_name}`
 * (docs/error-handling; 502 throttle_violation when a client ignores `backoff`).
 * The fake enforces the documented rules itself: a call to /questions before the `backoff` it
 * gave has passed is a violation (and answered 400 throttle_violation), as is any call once
 * `quota_remaining` reached 0.
 */
import type { Post } from "../../src/model/post.js";
import type { Manners, PoliteServer, RouteAnswer } from "./polite-server.js";
import { startPoliteServer } from "./polite-server.js";

/** The running fake. */
export interface FakeStackExchange extends PoliteServer {
  /** Publishes the next `count` corpus questions with creation_date = `at` (epoch s, default now). */
  publish(count: number, at?: number): Record<string, unknown>[];
  /** The next /questions answer carries `backoff: seconds`. */
  sendBackoff(seconds: number): void;
  /** Sets the quota left; the answer that takes it to 0 is the last one allowed. */
  setQuota(remaining: number): void;
  questions: Record<string, unknown>[];
}

/** Starts the fake for `site`, with corpus `posts` to publish from. */
export async function startFakeStackExchange(
  site: string,
  posts: readonly Post[],
  manners?: Manners,
): Promise<FakeStackExchange> {
  const questions: Record<string, unknown>[] = [];
  let next = 0;
  let backoffNext = 0;
  let backoffUntil = 0;
  let quota = 10_000;
  const violations: string[] = [];
  const error = (id: number, name: string, message: string): RouteAnswer => ({
    status: 400,
    body: JSON.stringify({ error_id: id, error_message: message, error_name: name }),
  });
  const route = (url: URL): RouteAnswer => {
    if (url.pathname !== "/2.3/questions") return error(404, "no_method", "method not found");
    if (quota <= 0) {
      violations.push("a call after quota_remaining reached 0");
      return error(
        502,
        "throttle_violation",
        "too many requests from this IP, more requests available in 86400 seconds",
      );
    }
    if (Date.now() < backoffUntil - 50) {
      violations.push(`a call to /questions ${backoffUntil - Date.now()} ms before the backoff given had passed`);
      return error(502, "throttle_violation", "too many requests from this IP");
    }
    if (url.searchParams.get("site") !== site) return error(400, "bad_parameter", "site is required");
    quota -= 1;
    const from = Number(url.searchParams.get("fromdate") ?? 0);
    const page = Number(url.searchParams.get("page") ?? 1);
    const size = Number(url.searchParams.get("pagesize") ?? 30);
    const asc = url.searchParams.get("order") === "asc";
    const all = questions
      .filter((q) => (q["creation_date"] as number) >= from)
      .sort(
        (a, b) =>
          (asc ? 1 : -1) *
          ((a["creation_date"] as number) - (b["creation_date"] as number) ||
            (a["question_id"] as number) - (b["question_id"] as number)),
      );
    const items = all.slice((page - 1) * size, page * size);
    const wrapper: Record<string, unknown> = {
      items,
      has_more: page * size < all.length,
      quota_max: 10_000,
      quota_remaining: quota,
    };
    if (backoffNext > 0) {
      wrapper["backoff"] = backoffNext;
      backoffUntil = Date.now() + backoffNext * 1000;
      backoffNext = 0;
    }
    return { status: 200, body: JSON.stringify(wrapper) };
  };
  const server = await startPoliteServer(route, manners);
  return {
    ...server,
    get violations() {
      return [...server.violations, ...violations];
    },
    questions,
    publish(count, at = Math.floor(Date.now() / 1000)) {
      const made: Record<string, unknown>[] = [];
      for (let i = 0; i < count && next < posts.length; i += 1) {
        const p = posts[next++]!;
        const id = Number(p.nativeId.split(":").pop());
        const q = {
          tags: ["startups"],
          owner: {
            account_id: 1000 + id,
            reputation: 101,
            user_id: 2000 + id,
            user_type: "registered",
            display_name: p.author || "anonymous",
            link: `https://${site}.stackexchange.com/users/${2000 + id}`,
          },
          is_answered: p.comments > 0,
          view_count: 100,
          answer_count: p.comments,
          score: p.upvotes,
          last_activity_date: at,
          creation_date: at,
          question_id: id,
          content_license: "CC BY-SA 4.0",
          link: `https://${site}.stackexchange.com/questions/${id}`,
          title: p.title,
          body: `<p>${p.content.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/\n\n/g, "</p><p>")}</p>`,
        };
        questions.push(q);
        made.push(q);
      }
      return made;
    },
    sendBackoff(seconds) {
      backoffNext = seconds;
    },
    setQuota(remaining) {
      quota = remaining;
    },
  };
}
