/**
 * After `threadsight reembed` the posts keep their topic ids but their vectors live in another
 * space, where the topic model's centroids mean nothing (and may not even have the vectors'
 * width). Each topic's centroid becomes the normalised mean of the new vectors of the posts it
 * holds, so ingest assigns new posts to the topics the old ones are in; a topic that holds no
 * post any more is dropped from assignment. Labels, keywords and term counts stay.
 */
import type { TopicModel } from "./topic-model.js";
import { unit } from "./vectors.js";

/** Sums of post vectors per topic id, folded one post at a time. */
export class TopicSums {
  private readonly sums = new Map<string, Float64Array>();

  constructor(readonly dimensions: number) {}

  add(topicId: string, vector: ArrayLike<number>): void {
    if (topicId === "") return;
    let s = this.sums.get(topicId);
    if (!s) {
      s = new Float64Array(this.dimensions);
      this.sums.set(topicId, s);
    }
    for (let i = 0; i < this.dimensions; i++) s[i]! += vector[i]!;
  }

  get(topicId: string): Float64Array | undefined {
    return this.sums.get(topicId);
  }
}

/** `model` with centroids in the space of `sums`; see the module comment. */
export function retargetTopicModel(model: TopicModel, sums: TopicSums): TopicModel {
  const topics = model.topics.flatMap((t) => {
    const s = sums.get(t.id);
    return s === undefined ? [] : [{ ...t, centroid: Array.from(unit(s)) }];
  });
  return { ...model, version: model.version + 1, dimensions: sums.dimensions, topics };
}
