/**
 * The live sources as a health check: healthy while no enabled (unpaused) source is unhealthy,
 * that is, has failed three polls in a row. `serve --sync` reports it through the gRPC health
 * service as a non-gating check, so load balancers keep routing while operators see it.
 */
import type { SourceStore } from "../store/source-store.js";
import { healthOf } from "../store/source-store.js";

/** The name the health service reports the sources under. */
export const SOURCES_HEALTH_SERVICE = "threadsight.v1.Sources";

/** True when no enabled source is unhealthy; a store that cannot be read throws (not serving). */
export async function sourcesHealthy(store: SourceStore): Promise<boolean> {
  const records = await store.list();
  return records.every((r) => r.paused || healthOf(r) !== "unhealthy");
}
