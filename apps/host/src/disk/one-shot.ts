/**
 * A one-shot command's hottest code kept below JavaScriptCore's top tier (FTL). A `ws sync`
 * with nothing changed runs its walk's code for a few hundred milliseconds; FTL compiled
 * 23 of its functions in about 230 ms of a JIT thread's time — on two cores, time taken
 * from the sync itself — for code that had run most of its course before the compile
 * was done. The one rule: this changes how fast code runs, never what it does, and only
 * in a process that said it runs one command (a server walks again and again, and keeps
 * FTL for it).
 */

// biome-ignore lint/suspicious/noExplicitAny: the functions marked take anything; only their identity counts.
type Code = (...args: any[]) => unknown;

/** `bun:jsc`'s `noFTL`, where this Bun has it (else nothing is marked, and nothing changes but the speed). */
const noFtl: ((fn: Code) => unknown) | null = (() => {
  try {
    const jsc = require('bun:jsc') as { noFTL?: (fn: Code) => unknown };
    return typeof jsc.noFTL === 'function' ? jsc.noFTL : null;
  } catch {
    return null;
  }
})();

/** Functions made at load, marked when the process says it is one command. */
const madeAtLoad: Code[] = [];
let oneShot = false;

/** Functions made once, at load (module functions, methods): kept below FTL in a one-shot command. */
export function belowFtl(...fns: Code[]): void {
  if (oneShot) for (const fn of fns) noFtl?.(fn);
  else madeAtLoad.push(...fns);
}

/** A function made for one walk or one set of rules: kept below FTL where the process is a one-shot command. */
export function belowFtlNow<T extends Code>(fn: T): T {
  if (oneShot) noFtl?.(fn);
  return fn;
}

/** This process runs one command and ends (the CLI's `sync`, `status`, `call`…): its hot code stays below FTL from now. */
export function oneShotCommand(): void {
  oneShot = true;
  for (const fn of madeAtLoad.splice(0)) noFtl?.(fn);
}
