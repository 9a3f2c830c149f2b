/**
 * Runs `threadsight ingest` from source in a child process (tests spawn it with
 * `node --import tsx test/ingest/run-cli.ts <args>`), so a test can kill it mid-ingest.
 */
import { run } from "../../src/cli/ingest.js";

process.exitCode = await run(process.argv.slice(2));
