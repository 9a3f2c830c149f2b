/**
 * Issue 45: verified email and sign-up that does not tell which emails exist. A real service
 * sends its mail to a real SMTP server on loopback (aiosmtpd, test/harness/smtp.ts); the test
 * reads the link out of the mail and follows it, and real `threadsight` CLI processes act as
 * the operator on the same data directory.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openAccountsStore } from "../../src/accounts/open-store.js";
import { submitPortalForm } from "../harness/portal-form.js";
import { runCli } from "../harness/seed.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";
import { startSmtp } from "../harness/smtp.js";

const smtp = await startSmtp();
after(() => smtp.stop());
const PUBLIC_URL = "https://portal.threadsight.test";
const PASSWORD = "correct horse battery";

describe("email verification over SMTP", { skip: smtp.skip }, () => {
  let svc: RunningService;
  let env: Record<string, string>;
  before(async () => {
    svc = await startService({
      env: {
        PORTAL_COOKIE_SECURE: "false",
        SMTP_URL: smtp.url,
        SMTP_FROM: "Threadsight <portal@threadsight.test>",
        PORTAL_PUBLIC_URL: PUBLIC_URL,
      },
    });
    env = { THREADSIGHT_DATA_DIR: svc.dataDir, DATABASE_URL: "", REDIS_URL: "" };
  });
  after(() => svc?.stop());

  const signUp = (email: string, name: string) =>
    submitPortalForm(svc.url, "/portal/sign-up", { name, email, password: PASSWORD });

  it("mails a one-time link; until it is followed the address can be neither admin nor given operator keys", async () => {
    const email = "colleague@example.com";
    const answer = await signUp(email, "Colleague");
    assert.equal(answer.status, 303, answer.body);
    assert.equal(answer.location, "/portal/sign-up/sent");
    assert.deepEqual(
      answer.setCookie.filter((c) => /session/i.test(c.split("=")[0]!)),
      [],
      "sign-up starts no session",
    );

    const mail = await smtp.waitFor(email);
    assert.equal(mail.subject, "Confirm your Threadsight account");
    const link = /(https:\/\/\S+\/portal\/verify-email\?token=[A-Za-z0-9_-]+)/.exec(mail.text)?.[1];
    assert.ok(link !== undefined, mail.text);
    assert.ok(link.startsWith(`${PUBLIC_URL}/`), "the link uses the configured origin, never the request's Host");

    const store = await openAccountsStore({ dataDir: svc.dataDir });
    const account = await store.findAccountByEmail(email).finally(() => store.close());
    assert.equal(account?.emailVerifiedAt, null);
    const admin = await runCli(["accounts", "admin", email], env);
    assert.equal(admin.code, 1);
    assert.match(admin.stderr, /is not verified/);
    const key = await runCli(["keys", "create", "--name", "k", "--account", account!.id], env);
    assert.equal(key.code, 1);
    assert.match(key.stderr, /is not verified/);

    // Follow the link: a page with one button (a mail scanner's GET spends nothing), then POST.
    const path = link.slice(PUBLIC_URL.length);
    const token = new URL(link).searchParams.get("token")!;
    const confirmed = await submitPortalForm(svc.url, path, { token }, "/portal/verify-email");
    assert.equal(confirmed.status, 303, confirmed.body);
    assert.equal(confirmed.location, "/portal/plans?welcome=1");
    assert.ok(
      confirmed.setCookie.some((c) => /session/i.test(c.split("=")[0]!)),
      "following the link signs in",
    );
    const again = await submitPortalForm(svc.url, path, { token }, "/portal/verify-email");
    assert.equal(again.status, 400, "the link works once");
    assert.match(again.body, /invalid, expired or already used/);

    const granted = await runCli(["accounts", "admin", email, "--json"], env);
    assert.equal(granted.code, 0, granted.stderr);
    assert.equal((JSON.parse(granted.stdout) as { is_admin: boolean }).is_admin, true);
    const issued = await runCli(["keys", "create", "--name", "k", "--account", account!.id, "--json"], env);
    assert.equal(issued.code, 0, issued.stderr);
  });

  it("answers a taken email exactly as a new one; only the mail says there is an account", async () => {
    const fresh = await signUp("new-person@example.com", "New");
    const taken = await signUp("colleague@example.com", "Someone else");
    assert.deepEqual(
      { status: taken.status, location: taken.location, body: taken.body },
      { status: fresh.status, location: fresh.location, body: fresh.body },
    );
    assert.deepEqual(
      taken.setCookie.map((c) => c.split("=")[0]),
      fresh.setCookie.map((c) => c.split("=")[0]),
    );
    const page = await fetch(`${svc.url}${taken.location}`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Check your inbox/);
    const note = await smtp.waitFor("colleague@example.com", 1);
    assert.equal(note.subject, "You already have a Threadsight account");
    assert.match(note.text, /already have an account/);
    assert.doesNotMatch(note.text, /verify-email/, "no new link for someone else's address");
    const store = await openAccountsStore({ dataDir: svc.dataDir });
    const existing = await store.findAccountByEmail("colleague@example.com").finally(() => store.close());
    assert.equal(existing?.name, "Colleague", "the taken account is unchanged");
  });

  it("limits sign-ups per address", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12 && statuses.at(-1) !== 429; i++)
      statuses.push((await signUp(`flood${i}@example.com`, "Flood")).status);
    assert.equal(statuses.at(-1), 429, statuses.join(","));
    assert.ok(
      statuses.slice(0, -1).every((s) => s === 303),
      statuses.join(","),
    );
  });
});
