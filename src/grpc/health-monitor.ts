/**
 * Serving status of the server and its parts, from named checks polled on an interval. Pure
 * (no RPC imports): the gRPC Health service, `/readyz` and shutdown all read or drive it.
 */

/** Status of one service, or of the whole server (name `""`). */
export type ServingStatus = "SERVING" | "NOT_SERVING";

/** A probe: resolves true when the thing it checks can serve. Throwing counts as false. */
export type HealthCheck = (signal: AbortSignal) => Promise<boolean>;

/** What subscribers hear: a status change, or the monitor stopping (no more events). */
export type HealthEvent =
  | { readonly type: "change"; readonly service: string; readonly status: ServingStatus }
  | { readonly type: "stopped" };

/** Tuning for {@link HealthMonitor}. */
export interface HealthMonitorOptions {
  /** Time between polls, in ms. Default 5000. */
  readonly intervalMs?: number;
  /** A check that takes longer fails (its signal is aborted), in ms. Default 2000. */
  readonly checkTimeoutMs?: number;
  /** Told about each failing check (false, throw or timeout), e.g. to log it. */
  readonly onCheckFailure?: (service: string, reason: unknown) => void;
}

/** The name under which the overall status is reported, per the gRPC health protocol. */
export const OVERALL = "";

/**
 * Keeps one status per registered check name (usually a fully-qualified gRPC service name)
 * plus the overall status `""`, which is SERVING only when every gating check passes. A check is
 * NOT_SERVING until its first pass, so a load balancer never routes to an unchecked server.
 * With no checks registered the server counts as SERVING (the process is up).
 */
export class HealthMonitor {
  private readonly intervalMs: number;
  private readonly checkTimeoutMs: number;
  private readonly onCheckFailure: ((service: string, reason: unknown) => void) | undefined;
  private readonly checks = new Map<string, HealthCheck>();
  /** Checks left out of the overall status. */
  private readonly nonGating = new Set<string>();
  private readonly status = new Map<string, ServingStatus>([[OVERALL, "SERVING"]]);
  private readonly subscribers = new Set<(event: HealthEvent) => void>();
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private isStopped = false;
  private draining = false;

  constructor(options: HealthMonitorOptions = {}) {
    this.intervalMs = options.intervalMs ?? 5000;
    this.checkTimeoutMs = options.checkTimeoutMs ?? 2000;
    this.onCheckFailure = options.onCheckFailure;
    if (!(this.intervalMs > 0) || !(this.checkTimeoutMs > 0)) {
      throw new RangeError(
        `intervalMs and checkTimeoutMs must be positive, got ${this.intervalMs} and ${this.checkTimeoutMs}`,
      );
    }
  }

  /**
   * Adds a named check; its status is NOT_SERVING until it first passes. On a started monitor
   * the check runs at the next poll. A check registered with `gating: false` reports its own
   * status only and never takes the overall status down: for parts whose failure must not pull
   * the server out of a load balancer (a forum that keeps failing is the forum's problem).
   *
   * @throws Error for the reserved name `""`, a duplicate name, or a stopped monitor.
   */
  register(service: string, check: HealthCheck, options: { gating?: boolean } = {}): this {
    if (service === OVERALL) throw new Error('the name "" is reserved for the overall status');
    if (this.checks.has(service)) throw new Error(`a health check named "${service}" is already registered`);
    if (this.isStopped) throw new Error("cannot register a health check on a stopped HealthMonitor");
    this.checks.set(service, check);
    if (options.gating === false) this.nonGating.add(service);
    this.set(service, "NOT_SERVING");
    return this;
  }

  /** Status of a registered name (`""` = overall), or undefined for a name never registered. */
  get(service: string): ServingStatus | undefined {
    return this.status.get(service);
  }

  /** Whether a registered check counts toward the overall status (false for `gating: false`). */
  gates(service: string): boolean {
    return this.checks.has(service) && !this.nonGating.has(service);
  }

  /** Snapshot of every status, the overall one under `""` included. */
  snapshot(): Map<string, ServingStatus> {
    return new Map(this.status);
  }

  /** True once {@link stop} or {@link shutdown} ran. */
  get stopped(): boolean {
    return this.isStopped;
  }

  /** Number of current subscribers, e.g. open Watch streams. */
  get subscriberCount(): number {
    return this.subscribers.size;
  }

  /**
   * Calls `listener` for every status change and once when the monitor stops. Returns the
   * function that unsubscribes. A listener that throws does not affect the others.
   */
  subscribe(listener: (event: HealthEvent) => void): () => void {
    this.subscribers.add(listener);
    return () => {
      this.subscribers.delete(listener);
    };
  }

  /** Polls once now and then every `intervalMs`; resolves after the first poll. */
  async start(): Promise<void> {
    if (this.isStopped) throw new Error("cannot start a stopped HealthMonitor");
    if (!this.timer) {
      this.timer = setInterval(() => void this.poll(), this.intervalMs);
      // The monitor must not keep the process alive on its own.
      this.timer.unref();
    }
    await this.poll();
  }

  /**
   * Runs every check once and applies the results. Concurrent calls share one run, so a slow
   * check never stacks polls.
   */
  poll(): Promise<void> {
    this.polling ??= this.runChecks().finally(() => {
      this.polling = undefined;
    });
    return this.polling;
  }

  /**
   * Marks every service NOT_SERVING (so watchers and load balancers drain away), then stops.
   * Call at the start of a graceful shutdown.
   */
  shutdown(): void {
    if (this.isStopped) return;
    this.draining = true;
    for (const service of this.checks.keys()) this.set(service, "NOT_SERVING");
    this.updateOverall();
    this.stop();
  }

  /** Stops polling and tells subscribers (Watch streams end). Statuses stay readable. */
  stop(): void {
    if (this.isStopped) return;
    this.isStopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    this.emit({ type: "stopped" });
    this.subscribers.clear();
  }

  private async runChecks(): Promise<void> {
    const entries = [...this.checks];
    const results = await Promise.all(entries.map(([service, check]) => this.runOne(service, check)));
    if (this.isStopped) return;
    entries.forEach(([service], i) => this.set(service, results[i] ? "SERVING" : "NOT_SERVING"));
  }

  private async runOne(service: string, check: HealthCheck): Promise<boolean> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const reason = new Error(`health check "${service}" took longer than ${this.checkTimeoutMs} ms`);
        controller.abort(reason);
        reject(reason);
      }, this.checkTimeoutMs);
    });
    try {
      const ok = await Promise.race([check(controller.signal), timeout]);
      if (!ok) this.onCheckFailure?.(service, new Error(`health check "${service}" reported not serving`));
      return ok === true;
    } catch (reason) {
      this.onCheckFailure?.(service, reason);
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  private set(service: string, status: ServingStatus): void {
    if (this.status.get(service) !== status) {
      this.status.set(service, status);
      this.emit({ type: "change", service, status });
    }
    this.updateOverall();
  }

  private updateOverall(): void {
    const allPass = [...this.checks.keys()]
      .filter((s) => !this.nonGating.has(s))
      .every((s) => this.status.get(s) === "SERVING");
    const overall: ServingStatus = allPass && !this.draining ? "SERVING" : "NOT_SERVING";
    if (this.status.get(OVERALL) !== overall) {
      this.status.set(OVERALL, overall);
      this.emit({ type: "change", service: OVERALL, status: overall });
    }
  }

  private emit(event: HealthEvent): void {
    for (const listener of [...this.subscribers]) {
      try {
        listener(event);
      } catch {
        // One faulty subscriber must not stop the others from hearing about the change.
      }
    }
  }
}
