/**
 * The evaluation's unit: one section per task. A section reads its labelled data, runs our
 * component and its baseline, records the data sizes it used and returns markdown. New tasks
 * (retrieval, trends) are added as sections in run.ts without touching the others.
 */

/** What the runner gives every section. */
export interface EvalContext {
  /** Records a data set's size for the report's data table. */
  recordData(name: string, rows: number, note: string): void;
  /** Records a goal and our figure for the summary at the top of the report; `met` undefined = no target. */
  recordGoal(goal: string, ours: string, met: boolean | undefined): void;
}

/** One task of the evaluation. */
export interface EvalSection {
  /** Short id, used on the command line to run only some sections. */
  id: string;
  title: string;
  /**
   * How the figures are made, in two to four sentences, for the report: data, split, metric and
   * baseline. No figures: those come from the run, and how they were reached is in `decisions`.
   */
  method: string;
  /** Decision records (file names under docs/decisions/) that tell how the figures were reached. */
  decisions: readonly string[];
  /** Shared data paths (relative to the data root) the section needs. */
  requires: readonly string[];
  run(ctx: EvalContext): Promise<string>;
}
