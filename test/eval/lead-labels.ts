/**
 * The hand-labelled lead set (test/eval/labels/leads.tsv and the second labels of its first 200
 * rows, leads-second.tsv), written under test/eval/labels/LEADS-GUIDELINE.md: per post its split,
 * lead type, target product, pain point and industry. Ids and labels only, no post text. Parsing
 * checks every rule a line must keep, so a bad label fails naming the file, line and field.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { INDUSTRIES } from "../../src/enrich/leads/industry.js";
import { PACKAGE_ROOT } from "../../src/package-root.js";
import { splitOf } from "./lead-strata.js";

/** The guideline's lead types, "none", and "drop" for a post that cannot be judged. */
export const LEAD_LABEL_TYPES = [
  "solution_request",
  "pain_point",
  "switching",
  "buying_intent",
  "none",
  "drop",
] as const;

/** One of {@link LEAD_LABEL_TYPES}. */
export type LeadLabelType = (typeof LEAD_LABEL_TYPES)[number];

/** One labelled post; "" stands for NONE in the text fields. */
export interface LeadLabel {
  split: string;
  id: string;
  leadType: LeadLabelType;
  targetProduct: string;
  painPoint: string;
  industry: string;
}

/** True for a label that names a lead (not none, not drop). */
export function isLead(label: Pick<LeadLabel, "leadType">): boolean {
  return label.leadType !== "none" && label.leadType !== "drop";
}

const INDUSTRY_SET: ReadonlySet<string> = new Set(INDUSTRIES);

function field(value: string): string {
  return value.trim() === "NONE" ? "" : value.trim();
}

/** Parses a label file's text; `where` names it in errors. */
export function parseLeadLabels(text: string, where: string): LeadLabel[] {
  const seen = new Set<string>();
  const out: LeadLabel[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "" || line.startsWith("#")) return;
    const at = `${where}:${i + 1}`;
    const parts = line.split("\t");
    if (parts.length !== 6)
      throw new Error(
        `${at}: expected 6 tab-separated fields (split, post id, lead_type, target_product, pain_point, industry), got ${parts.length}`,
      );
    const [split, id, type, target, pain, industry] = parts as [string, string, string, string, string, string];
    if (!(LEAD_LABEL_TYPES as readonly string[]).includes(type))
      throw new Error(`${at}: lead_type ${JSON.stringify(type)} is not one of ${LEAD_LABEL_TYPES.join(", ")}`);
    if (!INDUSTRY_SET.has(industry))
      throw new Error(`${at}: industry ${JSON.stringify(industry)} is not in the taxonomy`);
    if (split !== splitOf(id))
      throw new Error(`${at}: split ${split} of ${id} must be ${splitOf(id)} (splits are by post id hash)`);
    if (seen.has(id)) throw new Error(`${at}: post id ${id} is labelled twice`);
    seen.add(id);
    const label: LeadLabel = {
      split,
      id,
      leadType: type as LeadLabelType,
      targetProduct: field(target),
      painPoint: field(pain),
      industry,
    };
    if (!isLead(label) && (label.targetProduct !== "" || label.painPoint !== ""))
      throw new Error(`${at}: lead_type ${type} must have target_product and pain_point NONE`);
    out.push(label);
  });
  return out;
}

/** Reads test/eval/labels/<file> (leads.tsv unless told). */
export function loadLeadLabels(file = "leads.tsv"): LeadLabel[] {
  const where = path.join(PACKAGE_ROOT, "test", "eval", "labels", file);
  return parseLeadLabels(readFileSync(where, "utf8"), where);
}

/** One row of leads-strata.tsv: the sample row number, post id and stratum. */
export interface StratumRow {
  row: number;
  id: string;
  stratum: string;
}

/** Reads test/eval/labels/leads-strata.tsv (written by scripts/sample-lead-posts.ts). */
export function loadLeadStrata(): { rows: StratumRow[]; sizes: Map<string, number> } {
  const where = path.join(PACKAGE_ROOT, "test", "eval", "labels", "leads-strata.tsv");
  const rows: StratumRow[] = [];
  const sizes = new Map<string, number>();
  for (const line of readFileSync(where, "utf8").split("\n")) {
    if (line.startsWith("# size\t")) {
      const [, stratum, size] = line.split("\t");
      sizes.set(stratum!, Number(size));
    } else if (line.trim() !== "" && !line.startsWith("#")) {
      const [row, id, stratum] = line.split("\t");
      if (!row || !id || !stratum) throw new Error(`${where}: malformed line ${JSON.stringify(line)}`);
      rows.push({ row: Number(row), id, stratum });
    }
  }
  return { rows, sizes };
}
