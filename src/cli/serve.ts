/**
 * `threadsight serve`: runs the API server. Flags override the matching environment variables
 * (--port PORT, --host HOST, --data-dir THREADSIGHT_DATA_DIR); everything else is configured
 * by environment (see the README's configuration table).
 */
import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "../config.js";
import { runService } from "../main.js";
import { createLogger } from "../observability/logger.js";

const HELP = `usage: threadsight serve [--port N] [--host H] [--data-dir DIR] [--sync]

  --sync   also poll the live sources (\`threadsight sources list\`) inside the server, as
           \`threadsight sync\` does

Runs the API (gRPC, Connect, gRPC-Web and REST on one port). Other settings come from the
environment: DATABASE_URL, REDIS_URL, WEAVIATE_URL, PLANS_FILE, ... (see README).`;

/** Entry point of the subcommand. */
export async function run(argv: string[]): Promise<number> {
  let values: { port?: string; host?: string; "data-dir"?: string; sync?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: "string" },
        host: { type: "string" },
        "data-dir": { type: "string" },
        sync: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`threadsight serve: ${(err as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const env = {
    ...process.env,
    ...(values.port !== undefined ? { PORT: values.port } : {}),
    ...(values.host !== undefined ? { HOST: values.host } : {}),
    ...(values["data-dir"] !== undefined ? { THREADSIGHT_DATA_DIR: values["data-dir"] } : {}),
  };
  let config;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`threadsight serve: invalid configuration: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);
  try {
    await runService(config, logger, { sync: values.sync === true });
    return 0;
  } catch (err) {
    logger.fatal({ err }, "threadsight could not start");
    process.stderr.write(`threadsight serve: ${(err as Error).message}\n`);
    return 1;
  }
}
