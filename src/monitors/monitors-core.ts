/**
 * Managing monitors for one account: create, read, page, change, delete, rotate the secret,
 * list delivery attempts, redeliver. Ownership is by account id: a monitor of another account
 * answers not found, exactly like one that does not exist.
 */
import { randomBase62 } from "../accounts/random-id.js";
import { AppError } from "../errors/app-error.js";
import type { Followed, FollowTiming } from "./event-follower.js";
import { FOLLOW_TIMING, followEvents } from "./event-follower.js";
import type { MonitorSpec, StoredMonitor } from "./monitor-spec.js";
import { validateSpec } from "./monitor-spec.js";
import type { ListedAttempt, MonitorPosition, MonitorStore } from "./monitor-store.js";
import { seqOfEventId } from "./monitor-store.js";

/** How long a rotated-out secret keeps signing (as a second v1= value). */
export const SECRET_GRACE_MS = 24 * 3600_000;

/** The statuses ListDeliveries can filter on. */
const ATTEMPT_STATUSES = ["delivered", "failed", "dead_lettered", "deferred"] as const;

/** What one call knows about its caller. */
export interface Owner {
  accountId: string;
  /** Active monitors the account's plan allows; null = unlimited. */
  maxActiveMonitors: number | null;
  planName: string;
}

function newSecret(): string {
  return `whsec_${randomBase62(32)}`;
}

function notFound(id: string): AppError {
  return new AppError("NOT_FOUND", `no monitor with id "${id}" in this account`, { field: "monitor_id" });
}

/** The monitors domain over a store. */
export class MonitorsCore {
  constructor(
    private readonly store: MonitorStore,
    private readonly clock: () => number = Date.now,
    private readonly timing: FollowTiming = FOLLOW_TIMING,
  ) {}

  private async checkActiveLimit(owner: Owner, excluding?: string): Promise<void> {
    if (owner.maxActiveMonitors === null) return;
    let active = await this.store.countActive(owner.accountId);
    if (excluding !== undefined) active -= 1;
    if (active >= owner.maxActiveMonitors) {
      throw new AppError(
        "PERMISSION_DENIED",
        `the ${owner.planName} plan allows ${owner.maxActiveMonitors} active monitors and this account has ${active}; pause or delete one, or upgrade`,
        { limit: String(owner.maxActiveMonitors) },
      );
    }
  }

  /** Saves a new monitor; returns it and its signing secret. */
  async create(owner: Owner, spec: MonitorSpec): Promise<{ monitor: StoredMonitor; secret: string }> {
    validateSpec(spec);
    if (!spec.paused) await this.checkActiveLimit(owner);
    const now = this.clock();
    const monitor: StoredMonitor = {
      ...spec,
      name: spec.name.trim(),
      id: `mon_${randomBase62(16)}`,
      accountId: owner.accountId,
      pausedReason: "",
      secret: newSecret(),
      previousSecret: "",
      previousSecretUntil: 0,
      created: now,
      updated: now,
    };
    await this.store.create(monitor);
    return { monitor, secret: monitor.secret };
  }

  /** One monitor of the account. */
  async get(owner: Owner, id: string): Promise<StoredMonitor> {
    if (id === "") throw new AppError("MISSING_FIELD", "monitor_id is required", { field: "monitor_id" });
    const m = await this.store.get(owner.accountId, id);
    if (m === undefined) throw notFound(id);
    return m;
  }

  /** A page of the account's monitors, after the one at `after`. */
  list(owner: Owner, after: MonitorPosition | undefined, limit: number): Promise<StoredMonitor[]> {
    return this.store.list(owner.accountId, after, limit);
  }

  /** Applies `patch` (already holding the masked fields) to the monitor. */
  async update(owner: Owner, id: string, patch: (current: StoredMonitor) => StoredMonitor): Promise<StoredMonitor> {
    const current = await this.get(owner, id);
    const next = patch(current);
    validateSpec(next);
    if (current.paused && !next.paused) await this.checkActiveLimit(owner);
    // Resuming clears the service's reason for pausing.
    const updated: StoredMonitor = {
      ...next,
      name: next.name.trim(),
      pausedReason: next.paused ? next.pausedReason : "",
      updated: this.clock(),
    };
    await this.store.update(updated);
    return updated;
  }

  /** Deletes the monitor. */
  async delete(owner: Owner, id: string): Promise<void> {
    await this.get(owner, id);
    await this.store.delete(owner.accountId, id);
  }

  /** A new secret; the old one keeps signing for SECRET_GRACE_MS. */
  async rotateSecret(owner: Owner, id: string): Promise<{ secret: string; previousValidUntil: number }> {
    const m = await this.get(owner, id);
    const now = this.clock();
    const rotated: StoredMonitor = {
      ...m,
      previousSecret: m.secret,
      previousSecretUntil: now + SECRET_GRACE_MS,
      secret: newSecret(),
      updated: now,
    };
    await this.store.update(rotated);
    return { secret: rotated.secret, previousValidUntil: rotated.previousSecretUntil };
  }

  /** Delivery attempts of the monitor, newest first, older than the attempt numbered `before`. */
  async attempts(
    owner: Owner,
    id: string,
    status: string,
    before: number | undefined,
    limit: number,
  ): Promise<ListedAttempt[]> {
    if (status !== "" && !(ATTEMPT_STATUSES as readonly string[]).includes(status)) {
      throw new AppError(
        "INVALID_ARGUMENT",
        `status must be one of ${ATTEMPT_STATUSES.join(", ")} (or empty), got "${status}"`,
        { field: "status" },
      );
    }
    await this.get(owner, id);
    return this.store.attempts(id, status, before, limit);
  }

  /**
   * Follows the monitor's events after `afterEventId` (every later one, then live ones), or only
   * new ones when it is empty. Ownership and the id are checked before the first message.
   */
  async watch(owner: Owner, id: string, afterEventId: string, signal: AbortSignal): Promise<AsyncGenerator<Followed>> {
    await this.get(owner, id);
    let after: number;
    if (afterEventId === "") after = await this.store.lastSeq(id);
    else {
      const seq = seqOfEventId(afterEventId);
      if (seq === undefined) {
        throw new AppError(
          "INVALID_ARGUMENT",
          `after_event_id must be an event id such as "evt_000000001a", got "${afterEventId}"`,
          { field: "after_event_id" },
        );
      }
      after = seq;
    }
    return followEvents(this.store, id, after, signal, this.timing);
  }

  /** Queues an event again on every channel. */
  async redeliver(owner: Owner, id: string, eventId: string): Promise<void> {
    await this.get(owner, id);
    if (eventId === "") throw new AppError("MISSING_FIELD", "event_id is required", { field: "event_id" });
    if (!(await this.store.redeliver(id, eventId, this.clock()))) {
      throw new AppError("NOT_FOUND", `monitor "${id}" has no event "${eventId}"`, { field: "event_id" });
    }
  }
}
