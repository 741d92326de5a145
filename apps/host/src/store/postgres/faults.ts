/**
 * What a person or a model reads when the PostgreSQL store fails: one sentence naming the
 * store (its URL without the password), what failed and what to do. The one rule: a
 * failure says whether the call may be run again — `conflict` (another host changed the
 * same records at the same moment: the call is run again on what the store holds now) and
 * `unreachable` (the connection is gone: the open transaction was rolled back, so nothing
 * of it was stored) are retried by the lock; anything else is not.
 */
import { StoreError } from '../faults.ts';

/** Why a statement failed, as far as retrying goes. */
export type PgFaultKind = 'conflict' | 'unreachable' | 'full' | 'other';

/** A store failure of the PostgreSQL engine, with whether a fresh attempt may succeed. */
export class PgStoreError extends StoreError {
  constructor(
    message: string,
    readonly kind: PgFaultKind,
  ) {
    super(message);
  }
}

/** The URL as sentences show it: no password. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return 'the configured PostgreSQL URL';
  }
}

/** Which kind a failed statement is, from its SQLSTATE and whether the session was lost. */
export function pgFaultKind(state: string | undefined, lost: boolean): PgFaultKind {
  if (lost) return 'unreachable';
  if (state === '40001' || state === '40P01') return 'conflict';
  if (state === '53100') return 'full';
  return 'other';
}

/** The sentences about the store at `url`, in one place. */
export function pgWords(url: string) {
  const at = shownUrl(url);
  return {
    unreachable: (why: string) =>
      `The store at ${at} can't be reached (${why}); nothing was changed. Start the database or fix [store] url, then try again.`,
    conflict: (tries: number) =>
      `The store at ${at} was changed by another host at the same moment ${tries} times in a row; nothing more of this call was stored. Try again.`,
    full: () => `The database of the store at ${at} is out of disk space, so this change was not stored. Free some space and try again.`,
    failed: (doing: string, why: string) => `The store at ${at} could not be ${doing} (${why}).`,
    newer: (version: number, known: number) =>
      `The store at ${at} was made by a newer ws (store schema ${version}; this ws knows up to ${known}); update ws to use it. Nothing was changed.`,
    busy: (seconds: number, host: string) =>
      `The store at ${at} is busy: another ws process of host "${host}" has held this host's lock for over ${seconds} s. Try again in a moment, or stop that process.`,
  };
}
