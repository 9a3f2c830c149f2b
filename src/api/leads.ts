/** LeadService handlers: map the request, call LeadsCore, map the leads back. */
import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { LeadService } from "../../gen/threadsight/v1/leads_pb.js";
import { FindLeadsResponseSchema, LeadSchema } from "../../gen/threadsight/v1/leads_pb.js";
import type { LeadsCore } from "../core/leads.js";

/** Creates the LeadService implementation over the leads core. */
export function leadService(core: LeadsCore): ServiceImpl<typeof LeadService> {
  return {
    async findLeads(req, ctx) {
      const started = performance.now();
      const leads = await core.find(
        { query: req.query, limit: req.limit, minScore: req.minScore, filter: req.filter, sort: req.sort },
        ctx.signal,
      );
      const results = leads.map(({ post }) =>
        create(LeadSchema, {
          id: post.id,
          title: post.title,
          content: post.content,
          subforum: post.subforum,
          author: post.author,
          upvotes: post.upvotes,
          comments: post.comments,
          leadScore: Math.round(post.leadScore),
          leadType: post.leadType,
          painPoint: post.painPoint,
          opportunity: post.opportunity,
          industry: post.industry,
          targetProduct: post.targetProduct,
          url: post.url,
        }),
      );
      return create(FindLeadsResponseSchema, {
        query: req.query,
        results,
        total: results.length,
        processingTimeMs: Math.round(performance.now() - started),
      });
    },
  };
}
