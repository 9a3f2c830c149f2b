/**
 * WEAVIATE_COLLECTION may name a collection or an alias of one: `threadsight reembed` writes the
 * posts with new vectors into a second collection and then points the alias at it (Weaviate
 * aliases, server 1.32 and later), which every request resolves on the server, so the switch
 * is one atomic schema change. Processes open the collection the alias names at the time.
 */
import type { WeaviateClient } from "weaviate-client";

/** The collection `name` stands for: its alias target, or `name` itself when it is no alias. */
export async function resolveCollection(client: WeaviateClient, name: string): Promise<string> {
  const aliases = (await client.alias.listAll()) ?? [];
  return aliases.find((a) => a.alias === name)?.collection ?? name;
}

/** Whether `name` is an alias (rather than a collection or nothing). */
export async function isAlias(client: WeaviateClient, name: string): Promise<boolean> {
  return ((await client.alias.listAll()) ?? []).some((a) => a.alias === name);
}
