/** CPU time of a process from /proc/<pid>/stat (user + system, clock ticks of 10 ms). */
import { readFileSync } from "node:fs";

/** User + system CPU ms a process has used so far. */
export function procCpuMs(pid: number): number {
  const st = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = st.slice(st.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
}
