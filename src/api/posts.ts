/**
 * PostService handlers: GetPosts and ExportPosts map the request to PostsCore and its posts
 * to StoredPost messages. Rules and paging live in core/posts.ts.
 */
import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { PostService, StoredPost } from "../../gen/threadsight/v1/posts_pb.js";
import {
  ExportPostsResponseSchema,
  GetPostsResponseSchema,
  StoredPostSchema,
} from "../../gen/threadsight/v1/posts_pb.js";
import type { PostsCore } from "../core/posts.js";
import type { EnrichedPost } from "../model/post.js";
import { timestamp } from "./timestamps.js";

/**
 * A stored post as its message: every field the API shows, content whole, and its similarity
 * to the query when an export has one.
 */
export function storedPost(post: EnrichedPost, similarity?: number): StoredPost {
  return create(StoredPostSchema, {
    id: post.id,
    title: post.title,
    content: post.content,
    subforum: post.subforum,
    upvotes: post.upvotes,
    comments: post.comments,
    created: timestamp(post.created),
    sentiment: post.sentiment,
    url: post.url,
    source: post.source,
    author: post.author,
    sentimentScore: post.sentimentScore,
    leadType: post.leadType,
    leadScore: Math.round(post.leadScore),
    painPoint: post.painPoint,
    opportunity: post.opportunity,
    industry: post.industry,
    targetProduct: post.targetProduct,
    ...(similarity !== undefined ? { similarityScore: similarity } : {}),
  });
}

/** Creates the PostService implementation over the posts core. */
export function postService(core: PostsCore): ServiceImpl<typeof PostService> {
  return {
    async getPosts(req, ctx) {
      const found = await core.get(req.ids, ctx.signal);
      return create(GetPostsResponseSchema, { posts: found.posts.map((p) => storedPost(p)), notFound: found.notFound });
    },

    async *exportPosts(req, ctx) {
      const params = { filter: req.filter, format: req.format, query: req.query };
      for await (const batch of core.export(params, ctx.signal)) {
        yield create(ExportPostsResponseSchema, {
          posts: batch.map(({ post, similarity }) => storedPost(post, similarity)),
        });
      }
    },
  };
}
