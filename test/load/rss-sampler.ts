/**
 * Samples the service process's resident memory (VmRSS in /proc/<pid>/status, Linux), the CPU
 * time it has used (/proc/<pid>/stat, all threads), the time its main thread spent runnable but
 * waiting for a CPU (/proc/<pid>/schedstat), and the machine's load average, at a fixed interval
 * while the load runs. The service runs in its own process, so these are its own figures. The
 * run-queue wait tells a slow service from a starved one on a shared machine.
 */
import { readFileSync } from "node:fs";
import os from "node:os";

/** One sample. */
export interface RssSample {
  /** Epoch ms. */
  at: number;
  /** Resident set size, MiB. */
  rssMiB: number;
  /** 1-minute load average of the machine. */
  load1: number;
  /** CPU seconds used by the process so far (user + system, all threads). */
  cpuS: number;
  /** Seconds the main thread has waited on a run queue so far. */
  waitS: number;
}

/** Linux USER_HZ: /proc/<pid>/stat counts CPU time in these ticks. */
const TICKS_PER_S = 100;

function readCpu(pid: number): { cpuS: number; waitS: number } {
  try {
    // Fields after the ")" that closes the command name: utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const cpuS = (Number(f[11]) + Number(f[12])) / TICKS_PER_S;
    const waitS = Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[1]) / 1e9;
    return { cpuS, waitS };
  } catch {
    return { cpuS: Number.NaN, waitS: Number.NaN };
  }
}

/** Resident set size of `pid` in MiB, or undefined when it cannot be read. */
export function readRssMiB(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** A running sampler; `stop` returns every sample taken (one more is taken on stop). */
export interface RssSampler {
  stop(): RssSample[];
}

/** Samples `pid` now and every `intervalMs`; `onSample` sees each sample as it is taken. */
export function startRssSampler(pid: number, intervalMs: number, onSample?: (s: RssSample) => void): RssSampler {
  const samples: RssSample[] = [];
  const take = (): void => {
    const rss = readRssMiB(pid);
    if (rss === undefined) return;
    const s = { at: Date.now(), rssMiB: rss, load1: os.loadavg()[0]!, ...readCpu(pid) };
    samples.push(s);
    onSample?.(s);
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}
