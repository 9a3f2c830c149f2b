/**
 * The e-mail channel against a real SMTP server (aiosmtpd on loopback): each matching post
 * arrives as one message with the post and why it matched, the attempt records the SMTP reply
 * code, and an unreachable server is a failed attempt that is retried, not a lost event.
 * Channel validation names the field and rule. Runs on both monitor stores.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { IndexedPost } from "../../src/model/post.js";
import { periodEnd, periodStart } from "../../src/monitors/email-digest.js";
import { emptyFilter } from "../../src/monitors/monitor-filters.js";
import { monitorPercolator } from "../../src/monitors/monitor-percolator.js";
import type { ChannelSpec } from "../../src/monitors/monitor-spec.js";
import type { MonitorStore } from "../../src/monitors/monitor-store.js";
import { MonitorsCore } from "../../src/monitors/monitors-core.js";
import { createSmtpMailer } from "../../src/portal/mailer.js";
import type { OpenBackend } from "../harness/monitor-backends.js";
import { monitorBackends } from "../harness/monitor-backends.js";
import type { SmtpServer } from "../harness/smtp.js";
import { startSmtp } from "../harness/smtp.js";
import { forumPost, noEmbedding } from "./monitor-fixtures.js";

function post(
  n: number,
  title: string,
  content = "We have outgrown our spreadsheet and want something our team will use.",
): IndexedPost {
  return forumPost(`m${n}`, {
    title,
    content,
    leadType: "solution_request",
    leadScore: 72,
    vector: new Float32Array([1, 0, 0, 0]),
  });
}

async function until(cond: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

for (const backend of await monitorBackends())
  describe(`monitor e-mail channel over SMTP (${backend.name})`, { skip: backend.skip }, () => {
    let smtp: SmtpServer;
    let opened: OpenBackend;
    let store: MonitorStore;
    let core: MonitorsCore;
    const owner = { accountId: "acct_mail", maxActiveMonitors: null, planName: "Test" };
    before(async () => {
      smtp = await startSmtp();
      opened = await backend.open();
      store = opened.store;
      core = new MonitorsCore(store);
    });
    after(async () => {
      await opened.close();
      await smtp.stop();
    });

    const email = (to: string, emailMode: ChannelSpec["emailMode"] = "instant"): ChannelSpec => ({
      type: "email",
      url: "",
      email: to,
      emailMode,
    });

    function monitor(channels: ChannelSpec[], query = '"spreadsheet" OR crm') {
      return core.create(owner, {
        name: "CRM leads",
        kind: "keywords",
        query,
        minRelevance: 0.5,
        minScore: 50,
        filter: emptyFilter(),
        channels,
        paused: false,
      });
    }

    test("instant: one message per event with the post and why it matched", { skip: false }, async (t) => {
      if (smtp.skip) return t.skip(smtp.skip);
      const { monitor: m } = await monitor([email("owner@example.com")]);
      const percolate = monitorPercolator({
        store,
        embedder: noEmbedding,
        alphas: { hybridAlpha: 0.5, shortQueryAlpha: 0.3 },
      });
      await percolate(
        [post(1, "Which CRM for a 5-person agency?"), post(2, "Unrelated bakery question", "Flour prices went up.")],
        "ingest",
      );
      const mailer = createSmtpMailer(smtp.url, "alerts@threadsight.test");
      const worker = opened.runner({ allowPrivate: false, pollMs: 10, mailer });
      worker.start();
      try {
        const mail = await smtp.waitFor("owner@example.com");
        assert.equal(mail.subject, "[CRM leads] Which CRM for a 5-person agency?");
        assert.match(mail.text, /Monitor "CRM leads" matched a post\./);
        assert.match(mail.text, /https:\/\/example\.com\/m1/);
        assert.match(mail.text, /reddit \/ SaaS, by jane/);
        assert.match(mail.text, /outgrown our spreadsheet/);
        assert.match(mail.text, /Why it matched: contains spreadsheet, crm; lead: solution_request, score 72\./);
        await until(async () => (await store.attempts(m.id, "delivered", undefined, 5)).length === 1, "the attempt");
      } finally {
        await worker.stop();
        mailer.close();
      }
      const [attempt] = await store.attempts(m.id, "", undefined, 5);
      assert.equal(attempt!.channel, "email");
      assert.equal(attempt!.responseCode, 250);
      assert.equal(
        (await smtp.messages()).filter((x) => x.to.includes("owner@example.com")).length,
        1,
        "only the match",
      );
    });

    test("an unreachable SMTP server is a failed attempt, retried; the event waits", async () => {
      const { monitor: m } = await monitor([email("down@example.com")], "invoice");
      const percolate = monitorPercolator({
        store,
        embedder: noEmbedding,
        alphas: { hybridAlpha: 0.5, shortQueryAlpha: 0.3 },
      });
      await percolate([post(3, "Best invoice tool for retainers?")], "ingest");
      const mailer = createSmtpMailer("smtp://127.0.0.1:9", "alerts@threadsight.test");
      const worker = opened.runner({
        allowPrivate: false,
        pollMs: 10,
        mailer,
        retry: { baseDelayMs: 20, maxDelayMs: 50, retryWindowMs: 60_000 },
      });
      worker.start();
      try {
        await until(
          async () => (await store.attempts(m.id, "failed", undefined, 5)).length >= 2,
          "two failed attempts",
        );
      } finally {
        await worker.stop();
        mailer.close();
      }
      const [last] = await store.attempts(m.id, "failed", undefined, 1);
      assert.match(last!.error, /^SMTP: /);
      assert.equal((await store.byId(m.id))!.paused, false, "inside the retry window the monitor stays active");
    });

    test("digest: one message per period listing its posts, marked delivered only once SMTP accepted it", async (t) => {
      if (smtp.skip) return t.skip(smtp.skip);
      const { monitor: m } = await monitor([email("digest@example.com", "digest")], "retainer");
      // 10:15 UTC: the hourly digest of these posts is due at 11:00.
      let now = Date.UTC(2026, 2, 3, 10, 15);
      const clock = () => now;
      const percolate = monitorPercolator({
        store,
        embedder: noEmbedding,
        alphas: { hybridAlpha: 0.5, shortQueryAlpha: 0.3 },
        clock,
      });
      await percolate(
        [
          post(11, "Retainer billing for agencies?"),
          post(12, "Unrelated bakery question", "Flour prices went up."),
          post(13, "Tracking retainer hours"),
        ],
        "ingest",
      );
      now = Date.UTC(2026, 2, 3, 10, 40);
      await percolate([post(14, "Retainer contracts: what do you use?")], "ingest");
      const events = await store.eventsAfter(m.id, 0, 10);
      assert.equal(events.length, 3);

      const down = createSmtpMailer("smtp://127.0.0.1:9", "alerts@threadsight.test");
      const failing = opened.runner({ allowPrivate: false, clock, mailer: down, random: () => 0 });
      try {
        now = Date.UTC(2026, 2, 3, 10, 59);
        assert.equal(await failing.tick(), 1, "the head is looked at once ...");
        assert.equal(await failing.tick(), 0, "... and waits for the end of its hour");
        assert.deepEqual(await store.attempts(m.id, "", undefined, 10), [], "waiting is not an attempt");

        now = Date.UTC(2026, 2, 3, 11, 0, 1);
        assert.equal(await failing.tick(), 1);
      } finally {
        down.close();
      }
      const failed = await store.attempts(m.id, "failed", undefined, 10);
      assert.deepEqual(failed.map((a) => a.eventId).sort(), events.map((e) => e.id).sort(), "the whole digest failed");
      assert.equal(await store.pendingEvents(m.id, 0, now, 10).then((p) => p.length), 3, "nothing lost: still pending");
      assert.equal((await smtp.messages()).filter((x) => x.to.includes("digest@example.com")).length, 0);

      // A post of the next hour belongs to the next digest.
      now = Date.UTC(2026, 2, 3, 11, 5);
      await percolate([post(15, "Retainer pricing page ideas")], "ingest");
      const mailer = createSmtpMailer(smtp.url, "alerts@threadsight.test");
      const worker = opened.runner({ allowPrivate: false, clock, mailer, random: () => 0 });
      try {
        now = Date.UTC(2026, 2, 3, 11, 10);
        while ((await worker.tick()) > 0);
        const mail = await smtp.waitFor("digest@example.com");
        assert.equal(mail.subject, "[CRM leads] 3 new matches (digest)");
        assert.match(mail.text, /^Monitor "CRM leads" matched 3 posts up to 2026-03-03T11:00:00\.000Z\./);
        const listed = [...mail.text.matchAll(/^\d+\. (.*)$/gm)].map((x) => x[1]);
        assert.deepEqual(listed, [
          "Retainer billing for agencies?",
          "Tracking retainer hours",
          "Retainer contracts: what do you use?",
        ]);
        assert.match(mail.text, /https:\/\/example\.com\/m13/);
        assert.match(mail.text, /Why it matched: contains retainer/);
        for (const e of events) assert.match(mail.text, new RegExp(`Event ${e.id}\\.`));
        const delivered = await store.attempts(m.id, "delivered", undefined, 10);
        assert.equal(delivered.length, 3);
        assert.ok(delivered.every((a) => a.responseCode === 250 && a.attempt === 2));

        now = Date.UTC(2026, 2, 3, 12, 0, 1);
        while ((await worker.tick()) > 0);
        const second = await smtp.waitFor("digest@example.com", 1);
        assert.equal(second.subject, "[CRM leads] 1 new match (digest)");
        assert.match(second.text, /1\. Retainer pricing page ideas/);
      } finally {
        await worker.stop();
        mailer.close();
      }
      assert.equal((await smtp.messages()).filter((x) => x.to.includes("digest@example.com")).length, 2);
    });

    test("digest periods: an hour, or a UTC day", () => {
      const t = Date.UTC(2026, 2, 3, 10, 15, 30);
      assert.equal(periodEnd(t, "hourly"), Date.UTC(2026, 2, 3, 11));
      assert.equal(periodStart(t, "daily"), Date.UTC(2026, 2, 3));
      assert.equal(periodEnd(t, "daily"), Date.UTC(2026, 2, 4));
      assert.equal(
        periodEnd(Date.UTC(2026, 2, 3, 11), "hourly"),
        Date.UTC(2026, 2, 3, 12),
        "an end starts the next period",
      );
    });

    test("validation names the field and rule", async () => {
      await assert.rejects(
        monitor([email("not-an-address")]),
        /monitor\.channels\[0\]\.email must be an e-mail address/,
      );
      await assert.rejects(
        monitor([email("a@b.co\r\nBcc: x@y.z")]),
        /monitor\.channels\[0\]\.email must be an e-mail address/,
      );
      await assert.rejects(
        monitor([{ ...email("a@example.com", "digest"), digestInterval: "weekly" as "daily" }]),
        /^AppError: monitor\.channels\[0\]\.digest_interval must be one of hourly, daily, got "weekly"$/,
      );
      await assert.rejects(
        monitor([{ ...email("a@example.com"), digestInterval: "daily" }]),
        /monitor\.channels\[0\]\.digest_interval only applies to an email channel with email_mode "digest"/,
      );
    });
  });
