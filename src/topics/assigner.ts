/**
 * Topic assignment at ingest: the enricher asks for the topic of each new post's embedding and
 * gets the nearest topic of the current model.json ("" while no model has been built). A rebuilt
 * model is picked up on the next check, without restarting ingest or the server.
 */
import { TopicModelFile, topicModelPath } from "./model-file.js";
import { assignTopic } from "./topic-model.js";

/** Assigns topics to post vectors. */
export interface TopicAssigner {
  /** Topic ids for the vectors, in order; "" for each when no model exists yet. */
  assign(vectors: readonly ArrayLike<number>[]): Promise<string[]>;
}

/** The assigner over `<dataDir>/topics/model.json`. */
export function createTopicAssigner(dataDir: string, recheckMs = 5_000): TopicAssigner {
  const file = new TopicModelFile(topicModelPath(dataDir), recheckMs);
  return {
    async assign(vectors) {
      const model = await file.current();
      return vectors.map((v) => (model ? assignTopic(model, v) : ""));
    },
  };
}
