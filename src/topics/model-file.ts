/**
 * Where the topic model lives on disk and how it is replaced: written to a temporary file in the
 * same directory, then renamed over `model.json`, so a reader sees the old model or the new one,
 * never half of one. {@link TopicModelFile} lets a long-running server pick up a rebuilt model
 * without restarting: it re-reads the file when its modification time changes.
 */
import { mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { TopicModel } from "./topic-model.js";
import { checkTopicModel } from "./topic-model.js";

/** `<dataDir>/topics/model.json`. */
export function topicModelPath(dataDir: string): string {
  return path.join(dataDir, "topics", "model.json");
}

/** Reads a model; undefined when the file does not exist. */
export async function loadTopicModel(file: string): Promise<TopicModel | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  return checkTopicModel(JSON.parse(text), file);
}

/** Writes a model atomically (temp file + rename). */
export async function saveTopicModel(file: string, model: TopicModel): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(tmp, JSON.stringify(model));
  await rename(tmp, file);
}

/** The current model of a file, reloaded when the file changes (checked at most every `recheckMs`). */
export class TopicModelFile {
  private model: TopicModel | undefined;
  private mtimeMs = -1;
  private checkedAt = -Infinity;

  constructor(
    readonly file: string,
    private readonly recheckMs = 5_000,
  ) {}

  /** The model as of the last check; undefined while no model has been built. */
  async current(): Promise<TopicModel | undefined> {
    const now = Date.now();
    if (now - this.checkedAt < this.recheckMs) return this.model;
    this.checkedAt = now;
    let mtimeMs: number;
    try {
      mtimeMs = (await stat(this.file)).mtimeMs;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      this.model = undefined;
      this.mtimeMs = -1;
      return undefined;
    }
    if (mtimeMs !== this.mtimeMs) {
      this.model = await loadTopicModel(this.file);
      this.mtimeMs = mtimeMs;
    }
    return this.model;
  }
}

/** What {@link reportTopicModel} found. */
export type TopicModelState = "loaded" | "missing" | "unreadable";

/**
 * Says at start-up whether ListTrends has a model to answer from. Without one ListTrends answers
 * FAILED_PRECONDITION (TOPICS_NOT_BUILT); the log line says what to do. An unreadable file is logged, not thrown: search and leads do not
 * need it, and ListTrends reports the fault on each call until a rebuild replaces the file.
 */
export async function reportTopicModel(
  models: TopicModelFile,
  log: { info(obj: object, msg: string): void; warn(msg: string): void; error(obj: object, msg: string): void },
): Promise<TopicModelState> {
  try {
    const model = await models.current();
    if (model === undefined) {
      log.warn(
        "no topic model yet: ListTrends answers TOPICS_NOT_BUILT until `threadsight topics rebuild` (or an ingest with enough posts) builds one",
      );
      return "missing";
    }
    log.info({ topics: model.topics.length, version: model.version, builtAt: model.createdAt }, "topic model loaded");
    return "loaded";
  } catch (err) {
    log.error(
      { err, file: models.file },
      "topic model unreadable: ListTrends fails until `threadsight topics rebuild` replaces it",
    );
    return "unreadable";
  }
}
