/** CPU time of a process, or of each thread of this one, from /proc (user + system, clock ticks of 10 ms). */
import { readdirSync, readFileSync } from "node:fs";

/** User + system CPU ms in a /proc stat line (fields after the command name). */
function statCpuMs(stat: string): number {
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
}

/** User + system CPU ms a process has used so far. */
export function procCpuMs(pid: number): number {
  return statCpuMs(readFileSync(`/proc/${pid}/stat`, "utf8"));
}

/** CPU ms so far of every thread of this process, by thread id, with the thread's name. */
export function threadCpuMs(): Map<string, { name: string; ms: number }> {
  const out = new Map<string, { name: string; ms: number }>();
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const st = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      out.set(tid, { name: st.slice(st.indexOf("(") + 1, st.lastIndexOf(")")), ms: statCpuMs(st) });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/**
 * CPU ms per thread name between two {@link threadCpuMs} readings ("main" for this thread),
 * largest first, as "name ms, name ms".
 */
export function threadCpuDiff(
  a: Map<string, { name: string; ms: number }>,
  b: Map<string, { name: string; ms: number }>,
): string {
  const byName = new Map<string, number>();
  for (const [tid, t] of b) {
    const key = tid === String(process.pid) ? "main" : t.name;
    byName.set(key, (byName.get(key) ?? 0) + t.ms - (a.get(tid)?.ms ?? 0));
  }
  return [...byName]
    .filter(([, v]) => v > 0)
    .sort((x, y) => y[1] - x[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
}
