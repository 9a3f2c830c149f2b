/**
 * `threadsight sources add|list|remove|pause|resume`: the live sources `threadsight sync` polls,
 * stored where the config says (SQLite in the data directory, PostgreSQL with DATABASE_URL).
 * Settings are a JSON object checked by the kind's connector before anything is stored.
 * Exit codes: 0 done, 1 failed (no such source, store unreachable), 2 usage error.
 */
import { loadConfig } from "../config.js";
import { AppError } from "../errors/app-error.js";
import { CONNECTORS } from "../sources/connectors.js";
import { redactSettings } from "../sources/settings-fields.js";
import { isSourceKind, SOURCE_KINDS } from "../sources/source.js";
import { openSourceStore } from "../sources/store/open-source-store.js";
import type { SourceRecord, SourceStore } from "../sources/store/source-store.js";
import { healthOf, SourceExistsError } from "../sources/store/source-store.js";
import { out, parseSubcommand, UsageError } from "./store-command.js";
import { table } from "./text-table.js";

const HELP = `usage:
  threadsight sources add NAME --kind KIND [--settings JSON] [--interval SECONDS]
  threadsight sources list [--json]
  threadsight sources remove NAME
  threadsight sources pause NAME
  threadsight sources resume NAME

  NAME        1-64 lowercase letters, digits, - or _ (e.g. hn, se-startups)
  --kind      ${SOURCE_KINDS.join(", ")}
  --settings  the kind's settings as a JSON object (see docs/guides/live-sources.md), e.g.
              '{"site":"startups"}' for stackexchange, '{"url":"https://example.org/feed.xml"}' for rss,
              '{"baseUrl":"https://meta.discourse.org"}' for discourse,
              '{"instanceUrl":"https://lemmy.world","community":"startups"}' for lemmy,
              '{"subreddit":"startups","clientId":"…","clientSecret":"…"}' for reddit
  --interval  seconds between polls (default 60, at least 10)

\`threadsight sync\` polls the sources; \`threadsight serve --sync\` does so inside the server.`;

/** Seconds between polls when --interval is not given. */
export const DEFAULT_INTERVAL_SECONDS = 60;
const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

type Execute = (store: SourceStore) => Promise<number>;

function name(label: string, raw: string | undefined): string {
  if (raw === undefined) throw new UsageError(`${label}: give the source's NAME`);
  if (!NAME.test(raw))
    throw new UsageError(`${label}: NAME must be 1-64 lowercase letters, digits, - or _, got "${raw}"`);
  return raw;
}

function when(ms: number | undefined): string {
  return ms === undefined || ms === 0 ? "-" : new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
}

function recordJson(r: SourceRecord): Record<string, unknown> {
  return {
    name: r.name,
    kind: r.kind,
    settings: redactSettings(r.settings),
    interval_seconds: r.intervalSeconds,
    paused: r.paused,
    health: healthOf(r),
    consecutive_failures: r.consecutiveFailures,
    last_error: r.lastError ?? null,
    last_error_kind: r.lastErrorKind ?? null,
    last_poll_at: r.lastPollAt === undefined ? null : new Date(r.lastPollAt).toISOString(),
    last_success_at: r.lastSuccessAt === undefined ? null : new Date(r.lastSuccessAt).toISOString(),
    next_poll_at: new Date(r.nextPollAt).toISOString(),
    polls: r.polls,
    posts_written: r.postsWritten,
    polled_by: r.leaseOwner !== undefined && r.leaseUntil >= Date.now() ? r.leaseOwner : null,
  };
}

const SUBCOMMANDS: Record<string, (args: string[]) => Execute> = {
  add(args) {
    const p = parseSubcommand(
      "sources add",
      args,
      { kind: { type: "string" }, settings: { type: "string" }, interval: { type: "string" } },
      1,
    );
    const n = name("sources add", p.positionals[0]);
    const kind = p.values["kind"];
    if (typeof kind !== "string" || !isSourceKind(kind))
      throw new UsageError(
        `sources add: --kind must be one of ${SOURCE_KINDS.join(", ")}${typeof kind === "string" ? `, got "${kind}"` : ""}`,
      );
    const rawInterval = p.values["interval"];
    let interval = DEFAULT_INTERVAL_SECONDS;
    if (typeof rawInterval === "string") {
      if (!/^\d+$/.test(rawInterval) || Number(rawInterval) < 10 || Number(rawInterval) > 86_400)
        throw new UsageError(
          `sources add: --interval must be a whole number of seconds between 10 and 86400, got "${rawInterval}"`,
        );
      interval = Number(rawInterval);
    }
    let raw: unknown = {};
    if (typeof p.values["settings"] === "string") {
      try {
        raw = JSON.parse(p.values["settings"]);
      } catch (err) {
        throw new UsageError(`sources add: --settings must be a JSON object: ${(err as Error).message}`);
      }
    }
    let settings;
    try {
      settings = CONNECTORS[kind].validate(raw);
    } catch (err) {
      if (err instanceof AppError) throw new UsageError(`sources add: ${err.message}`);
      throw err;
    }
    return async (store) => {
      try {
        await store.add({ name: n, kind, settings, intervalSeconds: interval });
      } catch (err) {
        if (err instanceof SourceExistsError)
          throw new UsageError(`sources add: ${err.message} (remove it first, or pick another name)`);
        throw err;
      }
      out(`added ${n} [${kind}]: ${CONNECTORS[kind].describe(settings)}, every ${interval} s`);
      return 0;
    };
  },
  list(args) {
    const p = parseSubcommand("sources list", args, { json: { type: "boolean" } }, 0);
    return async (store) => {
      const records = await store.list();
      if (p.values["json"] === true) {
        out(JSON.stringify({ sources: records.map(recordJson) }));
        return 0;
      }
      if (records.length === 0) {
        out("no sources (add one with `threadsight sources add`)");
        return 0;
      }
      const rows = records.map((r) => [
        r.name,
        r.kind,
        r.paused ? "paused" : healthOf(r),
        `${r.intervalSeconds}s`,
        when(r.lastSuccessAt),
        r.paused ? "-" : when(r.nextPollAt),
        String(r.postsWritten),
        r.lastError === undefined || r.consecutiveFailures === 0
          ? "-"
          : `${r.lastErrorKind ?? "error"}: ${r.lastError.slice(0, 80)}`,
      ]);
      out(table([["NAME", "KIND", "STATUS", "EVERY", "LAST OK", "NEXT POLL", "POSTS", "LAST ERROR"], ...rows]));
      return 0;
    };
  },
  remove(args) {
    const p = parseSubcommand("sources remove", args, {}, 1);
    const n = name("sources remove", p.positionals[0]);
    return async (store) => {
      if (!(await store.remove(n))) return missing(n);
      out(`removed ${n} (its posts stay in the index)`);
      return 0;
    };
  },
  pause(args) {
    const p = parseSubcommand("sources pause", args, {}, 1);
    const n = name("sources pause", p.positionals[0]);
    return async (store) => {
      if (!(await store.setPaused(n, true))) return missing(n);
      out(`paused ${n}`);
      return 0;
    };
  },
  resume(args) {
    const p = parseSubcommand("sources resume", args, {}, 1);
    const n = name("sources resume", p.positionals[0]);
    return async (store) => {
      if (!(await store.setPaused(n, false))) return missing(n);
      out(`resumed ${n}; it is due now`);
      return 0;
    };
  },
};

function missing(n: string): number {
  process.stderr.write(`threadsight sources: no source named "${n}" (see \`threadsight sources list\`)\n`);
  return 1;
}

/** Entry point (registered in main.ts). */
export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === "help" || argv.some((a) => a === "--help" || a === "-h")) {
    out(HELP);
    return sub === undefined ? 2 : 0;
  }
  const handler = SUBCOMMANDS[sub];
  if (handler === undefined) {
    process.stderr.write(
      `threadsight sources: unknown subcommand "${sub}" (${Object.keys(SUBCOMMANDS).join(", ")})\n\n${HELP}\n`,
    );
    return 2;
  }
  try {
    const execute = handler(rest);
    const store = await openSourceStore(loadConfig());
    try {
      return await execute(store);
    } finally {
      await store.close();
    }
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`threadsight ${err.message}\nRun \`threadsight sources --help\` for usage.\n`);
      return 2;
    }
    process.stderr.write(`threadsight sources ${sub}: ${(err as Error).message}\n`);
    return 1;
  }
}
