/**
 * A real SMTP server on loopback for tests: aiosmtpd (scripts/install-smtp.sh) with its Mailbox
 * handler, which stores every accepted message in a Maildir. Tests read the messages from it,
 * as a recipient's mail client would. Skipped with a reason when aiosmtpd is not installed,
 * failing instead when REQUIRE_SMTP=1 or CI is set.
 */

import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { missingBackend } from "./backend-policy.js";

/** The version scripts/install-smtp.sh installs. */
const AIOSMTPD_VERSION = "1.4.6";
const CACHE = process.env.THREADSIGHT_CACHE ?? path.join(os.homedir(), ".cache/threadsight");
const PYTHON = path.join(CACHE, `aiosmtpd-${AIOSMTPD_VERSION}`, "bin", "python");

/** One received message: headers and the decoded plain-text body. */
export interface ReceivedMail {
  to: string;
  subject: string;
  text: string;
}

/** A running SMTP server, or why there is none. */
export interface SmtpServer {
  skip: string | false;
  /** smtp://127.0.0.1:PORT */
  url: string;
  /** Every message received so far. */
  messages(): Promise<ReceivedMail[]>;
  /** Waits (bounded) for a message to `to` beyond the first `after` such messages. */
  waitFor(to: string, after?: number): Promise<ReceivedMail>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.connect(port, "127.0.0.1");
    c.once("connect", () => (c.destroy(), resolve(true)));
    c.once("error", () => resolve(false));
  });
}

/** Quoted-printable to text (nodemailer wraps long lines and escapes "=" that way). */
function decodeQuotedPrintable(body: string): string {
  return body
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function parse(raw: string): ReceivedMail {
  const split = raw.search(/\r?\n\r?\n/);
  const head = raw.slice(0, split).replace(/\r?\n[ \t]+/g, " ");
  const body = raw.slice(split).trim();
  const header = (name: string): string => new RegExp(`^${name}:\\s*(.*)$`, "im").exec(head)?.[1]?.trim() ?? "";
  const encoding = header("Content-Transfer-Encoding").toLowerCase();
  const text =
    encoding === "quoted-printable"
      ? decodeQuotedPrintable(body)
      : encoding === "base64"
        ? Buffer.from(body, "base64").toString("utf8")
        : body;
  return { to: header("To"), subject: header("Subject"), text };
}

/** Starts aiosmtpd on a free loopback port with a fresh Maildir. */
export async function startSmtp(): Promise<SmtpServer> {
  if (!existsSync(PYTHON)) {
    const skip = missingBackend("smtp", `aiosmtpd ${AIOSMTPD_VERSION} is not installed (run scripts/install-smtp.sh)`);
    return {
      skip,
      url: "",
      messages: async () => [],
      waitFor: () => Promise.reject(new Error(skip)),
      stop: async () => undefined,
    };
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), "threadsight-smtp-"));
  const maildir = path.join(dir, "Maildir");
  const port = await freePort();
  const child: ChildProcess = spawn(
    PYTHON,
    ["-m", "aiosmtpd", "-n", "-l", `127.0.0.1:${port}`, "-c", "aiosmtpd.handlers.Mailbox", maildir],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  for (let i = 0; !(await accepts(port)); i++) {
    if (i > 100 || child.exitCode !== null) {
      child.kill();
      throw new Error(`aiosmtpd did not start on port ${port}: ${stderr}`);
    }
    await sleep(100);
  }
  async function messages(): Promise<ReceivedMail[]> {
    const folder = path.join(maildir, "new");
    const names = existsSync(folder) ? (await readdir(folder)).sort() : [];
    return Promise.all(names.map(async (n) => parse(await readFile(path.join(folder, n), "utf8"))));
  }
  return {
    skip: false,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async waitFor(to, after = 0) {
      for (let i = 0; i < 200; i++) {
        const mine = (await messages()).filter((m) => m.to.includes(to));
        if (mine.length > after) return mine[after]!;
        await sleep(50);
      }
      throw new Error(`no mail to ${to} arrived within 10 s`);
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
