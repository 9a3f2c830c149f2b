/**
 * The `threadsight` command. Each subcommand lives in its own module and is loaded only when
 * asked for, so `threadsight keys list` never pays for loading the embedding model.
 * Exit codes: 0 success, 1 failure, 2 usage error, 3 finished with skipped input (ingest).
 */

/** A subcommand: receives the arguments after its name and returns the exit code. */
export type Command = (argv: string[]) => Promise<number>;

const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  serve: { summary: "run the API server", load: async () => (await import("./serve.js")).run },
  ingest: { summary: "load posts from dump files into the index", load: async () => (await import("./ingest.js")).run },
  reenrich: {
    summary: "re-run sentiment, lead and topic enrichment over stored posts",
    load: async () => (await import("./reenrich.js")).run,
  },
  reembed: {
    summary: "re-embed every stored post with another encoder, in place",
    load: async () => (await import("./reembed.js")).run,
  },
  keys: { summary: "create, list, revoke and rotate API keys", load: async () => (await import("./keys.js")).run },
  accounts: {
    summary: "list accounts; grant or revoke operator (admin) rights",
    load: async () => (await import("./accounts.js")).run,
  },
  plans: { summary: "list the plans of the catalog in force", load: async () => (await import("./plans.js")).run },
  usage: {
    summary: "show a key's usage in its current quota period",
    load: async () => (await import("./usage.js")).run,
  },
  sources: {
    summary: "add, list, remove, pause and resume live sources",
    load: async () => (await import("./sources.js")).run,
  },
  sync: {
    summary: "poll the live sources into the index (foreground)",
    load: async () => (await import("./sync.js")).run,
  },
  topics: { summary: "rebuild or list the topic model", load: async () => (await import("./topics.js")).run },
};

function usage(): string {
  const rows = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  return [
    "usage: threadsight <command> [options]",
    "",
    "commands:",
    ...rows,
    "",
    "Run `threadsight <command> --help` for a command's options.",
  ].join("\n");
}

/** Entry point used by bin/threadsight.js. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(usage() + "\n");
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    process.stderr.write(`threadsight: unknown command "${name}"\n\n${usage()}\n`);
    return 2;
  }
  // LanceDB's native logger prints its warnings to stderr unless told otherwise, and reads this
  // before the command's first import of it. Its warnings are engine chatter the user cannot act
  // on ("partition 4 is empty, skipping" for every empty partition when an ingest folds a few
  // edited posts into the vector index); its failures reach us as errors, which we report.
  // LANCEDB_LOG=warn (or debug) in the environment brings them back.
  process.env.LANCEDB_LOG ??= "error";
  return (await command.load())(rest);
}
