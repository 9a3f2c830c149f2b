/**
 * What `threadsight keys` and `threadsight accounts` share: subcommand dispatch, strict flag
 * parsing, the accounts store opened only after the command line parsed (a typo never creates a
 * database), and one mapping from failures to exit codes: 0 done, 1 failed, 2 usage error.
 */

import type { ParseArgsConfig } from "node:util";
import { parseArgs } from "node:util";
import { openAccountsStore } from "../accounts/open-store.js";
import type { AccountsStore } from "../accounts/store.js";
import type { Config } from "../config.js";
import { loadConfig } from "../config.js";

/** A mistake in the command line: exit 2 with the message. */
export class UsageError extends Error {}

export type ParseOptions = NonNullable<ParseArgsConfig["options"]>;

/** Flag values after parsing; every flag here is a string or a boolean. */
export interface Parsed {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** Writes one line to stdout (with --json, the only thing on stdout is one JSON value). */
export const out = (text: string): void => {
  process.stdout.write(text + "\n");
};

/**
 * Parses a subcommand's flags strictly (`--help`/`-h` always allowed) and at most `positionals`
 * positional arguments; errors name the offending flag or argument.
 */
export function parseSubcommand(label: string, args: string[], options: ParseOptions, positionals: number): Parsed {
  let parsed: Parsed;
  try {
    parsed = parseArgs({
      args,
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: positionals > 0,
      strict: true,
    }) as Parsed;
  } catch (err) {
    // parseArgs names the offending flag ("Unknown option '--plna'"), which is what we want.
    throw new UsageError(`${label}: ${(err as Error).message}`);
  }
  if (parsed.positionals.length > positionals) {
    throw new UsageError(`${label}: unexpected argument "${parsed.positionals[positionals]}"`);
  }
  return parsed;
}

/** A parsed subcommand, ready to run against the open store; resolves to the exit code. */
export type StoreExecute = (store: AccountsStore, config: Config) => Promise<number>;

export interface StoreCommand {
  /** The command's name after `threadsight` (e.g. "keys"). */
  name: string;
  help: string;
  /** Each subcommand parses its arguments (throwing UsageError) and returns what to run. */
  subcommands: Record<string, (args: string[]) => StoreExecute>;
  /** Maps a domain failure to an exit code (1 or 2); undefined -> the generic handling (1). */
  exitCodeFor?: (err: unknown) => number | undefined;
}

/** Runs `threadsight <name> <sub> ...` and returns the exit code. */
export async function runStoreCommand(command: StoreCommand, argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === "help" || [sub, ...rest].some((a) => a === "--help" || a === "-h")) {
    out(command.help);
    return sub === undefined ? 2 : 0;
  }
  const handler = command.subcommands[sub];
  if (handler === undefined) {
    const names = Object.keys(command.subcommands).join(", ");
    process.stderr.write(`threadsight ${command.name}: unknown subcommand "${sub}" (${names})\n\n${command.help}\n`);
    return 2;
  }
  try {
    const execute = handler(rest);
    const config = loadConfig();
    const store = await openAccountsStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
    try {
      return await execute(store, config);
    } finally {
      await store.close();
    }
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`threadsight ${err.message}\nRun \`threadsight ${command.name} --help\` for usage.\n`);
      return 2;
    }
    process.stderr.write(`threadsight ${command.name} ${sub}: ${(err as Error).message}\n`);
    return command.exitCodeFor?.(err) ?? 1;
  }
}
