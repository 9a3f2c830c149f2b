/**
 * The billing provider's webhook, POST /portal/billing/stripe/webhook: the only way a paid plan
 * reaches an account from the portal. It is its own encapsulated plugin because the signature
 * covers the exact bytes Stripe sent, so its JSON body stays a raw Buffer here, and because it
 * answers machines (JSON, no session, no CSRF token: the signature is the authentication).
 */
import type { FastifyInstance } from "fastify";
import { WebhookSignatureError } from "../billing.js";
import type { PortalService } from "../portal-service.js";
import { PortalError } from "../portal-service.js";

/** Options of the billing routes. */
export interface BillingRoutesOptions {
  service: PortalService;
  maxBodyBytes: number;
}

/** Path of the Stripe webhook under the portal prefix. */
export const STRIPE_WEBHOOK_PATH = "/billing/stripe/webhook";

/** Registers the webhook route. */
export async function billingRoutes(app: FastifyInstance, opts: BillingRoutesOptions): Promise<void> {
  app.addContentTypeParser(
    "application/json",
    { parseAs: "buffer", bodyLimit: opts.maxBodyBytes },
    (_req, body, done) => done(null, body),
  );

  app.post(STRIPE_WEBHOOK_PATH, async (req, reply) => {
    if (opts.service.billingProvider() !== "stripe") {
      return reply
        .code(404)
        .send({ error: { reason: "NOT_FOUND", message: "no Stripe billing is configured on this service" } });
    }
    const body = req.body;
    if (!Buffer.isBuffer(body)) {
      return reply.code(400).send({
        error: {
          reason: "INVALID_ARGUMENT",
          message: "the body must be Stripe's JSON event (Content-Type: application/json)",
        },
      });
    }
    const signature = req.headers["stripe-signature"];
    try {
      const result = await opts.service.billingWebhook(body, typeof signature === "string" ? signature : undefined);
      req.log.info({ event: result.type, handled: result.handled }, "billing webhook");
      return reply.code(200).send({ received: true, handled: result.handled });
    } catch (err) {
      if (err instanceof WebhookSignatureError) {
        req.log.warn({ reason: err.message }, "billing webhook refused");
        return reply.code(400).send({ error: { reason: "INVALID_SIGNATURE", message: err.message } });
      }
      if (err instanceof PortalError && err.failure.kind === "not_found") {
        // An event for an account that no longer exists: acknowledged so Stripe stops retrying.
        return reply.code(200).send({ received: true, handled: false });
      }
      throw err;
    }
  });

  app.setErrorHandler(async (err, req, reply) => {
    req.log.error({ err }, "billing webhook failed");
    // A 5xx makes Stripe retry the event later, which is what an unreachable store needs.
    return reply
      .code(500)
      .send({ error: { reason: "INTERNAL", message: "the event could not be applied; it will be retried" } });
  });
}
