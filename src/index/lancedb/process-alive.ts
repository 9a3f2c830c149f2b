/**
 * Whether a process id names a live process on this host, for the pid files the embedded index
 * keeps beside its tables (the writer lock, the servers reading it). EPERM means it exists but
 * belongs to another user: still alive.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
