/**
 * Closing what a command opened, in order, without letting one failure hide another or pass in
 * silence. Closing the embedded index is where its last rows are folded into the search indexes,
 * so a failure there is worth a line and an exit code, not a swallowed promise.
 */

/** Something a command opened. */
export interface Closable {
  close(): Promise<void>;
}

/**
 * Closes each named resource (skipping those never opened), reports each failure as
 * "<command>: closing <name> failed: <reason>", and resolves true when every close succeeded.
 */
export async function closeAll(
  command: string,
  resources: ReadonlyArray<readonly [string, Closable | undefined]>,
  err: (line: string) => void,
): Promise<boolean> {
  let ok = true;
  for (const [name, resource] of resources) {
    if (resource === undefined) continue;
    try {
      await resource.close();
    } catch (e) {
      ok = false;
      err(`${command}: closing ${name} failed: ${(e as Error).message}`);
    }
  }
  return ok;
}
