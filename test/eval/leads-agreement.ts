/**
 * Agreement of two labellers on the doubly labelled lead posts: Cohen's kappa on lead_type (six
 * classes less "drop") and on lead-vs-not, the raw agreement beside each, the confusion of the
 * two, and how often both name the same target product when both see a lead. A pair where either
 * labeller dropped the post is left out and counted.
 */
import { isLead, type LeadLabel } from "./lead-labels.js";

/** Cohen's kappa of two raters over any categories; NaN when chance agreement is 1 (one category only). */
export function kappa(a: readonly string[], b: readonly string[]): number {
  if (a.length !== b.length) throw new Error(`kappa needs equal lengths, got ${a.length} and ${b.length}`);
  const n = a.length;
  if (n === 0) return Number.NaN;
  const observed = a.filter((x, i) => x === b[i]).length / n;
  const count = (xs: readonly string[]): Map<string, number> => {
    const m = new Map<string, number>();
    for (const x of xs) m.set(x, (m.get(x) ?? 0) + 1);
    return m;
  };
  const ca = count(a);
  const cb = count(b);
  let chance = 0;
  for (const [k, v] of ca) chance += (v / n) * ((cb.get(k) ?? 0) / n);
  return chance === 1 ? Number.NaN : (observed - chance) / (1 - chance);
}

/** What {@link agreement} measures. */
export interface Agreement {
  /** Posts both labelled and neither dropped. */
  pairs: number;
  /** Posts both labelled where at least one dropped the post. */
  dropped: number;
  typeKappa: number;
  typeAgreement: number;
  leadKappa: number;
  leadAgreement: number;
  /** Pairs where both saw a lead, and of them those with the same target product (case-folded). */
  bothLead: number;
  sameTarget: number;
  /** first label -> second label -> count. */
  confusion: Map<string, Map<string, number>>;
}

/** Compares the labels of the posts present in both lists. */
export function agreement(first: readonly LeadLabel[], second: readonly LeadLabel[]): Agreement {
  const byId = new Map(second.map((l): [string, LeadLabel] => [l.id, l]));
  const a: LeadLabel[] = [];
  const b: LeadLabel[] = [];
  let dropped = 0;
  for (const l of first) {
    const other = byId.get(l.id);
    if (!other) continue;
    if (l.leadType === "drop" || other.leadType === "drop") dropped++;
    else {
      a.push(l);
      b.push(other);
    }
  }
  const confusion = new Map<string, Map<string, number>>();
  a.forEach((l, i) => {
    const row = confusion.get(l.leadType) ?? new Map<string, number>();
    row.set(b[i]!.leadType, (row.get(b[i]!.leadType) ?? 0) + 1);
    confusion.set(l.leadType, row);
  });
  const types = [a.map((l) => l.leadType), b.map((l) => l.leadType)] as const;
  const leads = [a.map((l) => String(isLead(l))), b.map((l) => String(isLead(l)))] as const;
  const both = a.map((l, i) => [l, b[i]!] as const).filter(([x, y]) => isLead(x) && isLead(y));
  const share = (xs: readonly string[], ys: readonly string[]): number =>
    xs.length === 0 ? Number.NaN : xs.filter((x, i) => x === ys[i]).length / xs.length;
  return {
    pairs: a.length,
    dropped,
    typeKappa: kappa(...types),
    typeAgreement: share(...types),
    leadKappa: kappa(...leads),
    leadAgreement: share(...leads),
    bothLead: both.length,
    sameTarget: both.filter(([x, y]) => x.targetProduct.toLowerCase() === y.targetProduct.toLowerCase()).length,
    confusion,
  };
}
