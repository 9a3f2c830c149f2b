/**
 * Runs the `threadsight` command from source (tests spawn `node --import tsx
 * test/harness/cli-entry.ts <args>`), the same dispatcher bin/threadsight.js runs from dist/.
 */
import { main } from "../../src/cli/main.js";

process.exitCode = await main(process.argv.slice(2));
