/**
 * What the benchmark ran on: CPU, cores, RAM, Node, OS and the load average at the moment a
 * measurement started. The machine is shared, so every section records its own load.
 */
import os from "node:os";

/** A snapshot of the machine and its load. */
export interface MachineInfo {
  cpu: string;
  cores: number;
  ramGiB: number;
  node: string;
  os: string;
  /** 1, 5 and 15 minute load averages. */
  load: [number, number, number];
  at: string;
}

/** Reads the machine description and current load. */
export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  const [l1, l5, l15] = os.loadavg() as [number, number, number];
  return {
    cpu: cpus[0]?.model ?? "unknown CPU",
    cores: cpus.length,
    ramGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: `${os.platform()} ${os.release()}`,
    load: [l1, l5, l15],
    at: new Date().toISOString(),
  };
}

/**
 * When and where a section was measured, as its report line gives it: "measured 2026-11-27 16:35
 * UTC on Intel(R) Xeon(R) Processor, 0.4 min, load at start ...". The processor is named because
 * one report holds sections from several machines (report-carry-over.ts).
 */
export function measuredWhen(m: MachineInfo, durationS: number): string {
  return `measured ${m.at.slice(0, 16).replace("T", " ")} UTC on ${m.cpu}, ${(durationS / 60).toFixed(1)} min, load at start ${loadText(m)}`;
}

/** "9.04 / 10.26 / 9.09 (1/5/15 min) on 2 cores". */
export function loadText(m: Pick<MachineInfo, "load" | "cores">): string {
  return `${m.load.map((x) => x.toFixed(2)).join(" / ")} (1/5/15 min) on ${m.cores} cores`;
}
