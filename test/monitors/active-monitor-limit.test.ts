/**
 * max_active_monitors of every plan in both catalogs (config/plans/variant-a.json and
 * variant-b.json), enforced on create and on resume: the plan's number of active monitors is
 * accepted, one more is refused with a message naming the plan and the limit, a paused monitor
 * does not count, and null is unlimited, on both monitor stores. (monitor-service.test.ts shows
 * the same over gRPC.)
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { loadPlanCatalog } from "../../src/limits/plan-catalog.js";
import { emptyFilter } from "../../src/monitors/monitor-filters.js";
import type { MonitorSpec } from "../../src/monitors/monitor-spec.js";
import type { MonitorStore } from "../../src/monitors/monitor-store.js";
import type { Owner } from "../../src/monitors/monitors-core.js";
import { MonitorsCore } from "../../src/monitors/monitors-core.js";
import type { OpenBackend } from "../harness/monitor-backends.js";
import { monitorBackends } from "../harness/monitor-backends.js";

const SPEC: MonitorSpec = {
  name: "crm",
  kind: "keywords",
  query: "crm",
  minRelevance: 0.5,
  minScore: 50,
  filter: emptyFilter(),
  channels: [],
  paused: false,
};

/** Active monitors created for an unlimited plan: more than any finite limit of the catalogs. */
const UNLIMITED_PROBE = 30;

for (const backend of await monitorBackends())
  describe(`max_active_monitors in both plan catalogs (${backend.name})`, { skip: backend.skip }, () => {
    let opened: OpenBackend;
    let store: MonitorStore;
    let core: MonitorsCore;
    before(async () => {
      opened = await backend.open();
      store = opened.store;
      core = new MonitorsCore(store);
    });
    after(async () => {
      await opened.close();
    });

    for (const file of ["config/plans/variant-a.json", "config/plans/variant-b.json"]) {
      const catalog = loadPlanCatalog(file);
      for (const plan of catalog.plans) {
        test(`${catalog.name} ${plan.id}: ${plan.maxActiveMonitors ?? "unlimited"} active`, async () => {
          const owner: Owner = {
            accountId: `acct_${catalog.name}_${plan.id}`,
            maxActiveMonitors: plan.maxActiveMonitors,
            planName: plan.name,
          };
          const limit = plan.maxActiveMonitors;
          const allowed = limit ?? UNLIMITED_PROBE;
          for (let i = 0; i < allowed; i++) await core.create(owner, SPEC);
          assert.equal(await store.countActive(owner.accountId), allowed);
          const { monitor: paused } = await core.create(owner, { ...SPEC, paused: true });
          if (limit === null) {
            await core.create(owner, SPEC);
            return;
          }
          const refused = new RegExp(
            `the ${plan.name} plan allows ${limit} active monitors and this account has ${limit}; pause or delete one, or upgrade$`,
          );
          await assert.rejects(core.create(owner, SPEC), (err: Error & { kind?: string }) => {
            assert.equal(err.kind, "PERMISSION_DENIED");
            assert.match(err.message, refused);
            return true;
          });
          await assert.rejects(
            core.update(owner, paused.id, (m) => ({ ...m, paused: false })),
            refused,
            "resuming counts like creating",
          );
          if (limit > 0) {
            // An active one: the list's order (by creation, then random id) may put the paused one first.
            const active = (await core.list(owner, undefined, 100)).find((m) => !m.paused);
            await core.update(owner, active!.id, (m) => ({ ...m, paused: true }));
            const resumed = await core.update(owner, paused.id, (m) => ({ ...m, paused: false }));
            assert.equal(resumed.paused, false, "a freed slot can be used");
          }
        });
      }
    }
  });
