/**
 * When a target_product answer counts as right against a label: case-folded, on whole words, one
 * naming the other ("crm" in "crm software"), with a gazetteer alias read as its product
 * ("AdWords" is "Google AdWords"). A product's category never stands for it: "Shopify" is not
 * "ecommerce platform".
 */
import { canonicalProduct } from "../../src/enrich/leads/gazetteer.js";

function words(s: string): string {
  return ` ${s
    .toLowerCase()
    .replace(/[^a-z0-9+#.]+/g, " ")
    .trim()} `;
}

/** Lenient target match: equal, or one names the other as whole words ("crm" in "crm software"). */
export function sameTarget(a: string, b: string): boolean {
  const x = words(a);
  const y = words(b);
  return x.trim() !== "" && y.trim() !== "" && (x.includes(y) || y.includes(x));
}

/** {@link sameTarget}, or the same once a side that is a gazetteer name or alias is written canonically. */
export function sameTargetAliased(a: string, b: string): boolean {
  return sameTarget(a, b) || sameTarget(canonicalProduct(a) ?? a, canonicalProduct(b) ?? b);
}

/** The strict reading beside it: equal once case-folded and aliases resolved. */
export function exactTarget(a: string, b: string): boolean {
  const x = words(canonicalProduct(a) ?? a).trim();
  return x !== "" && x === words(canonicalProduct(b) ?? b).trim();
}
