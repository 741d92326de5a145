/**
 * The sentence `status` adds where drafts exist: which tools show and drop them. The
 * one rule: it is added beside the mounts' own reports, never into them — a mount's
 * words are its own (`reports.ts`).
 */
import type { Report } from './workspace.ts';
import { draftsStatusNote } from './errors.ts';

/** The report lists that hold drafts: a mount reporting any of them non-empty has drafts. */
const DRAFT_LISTS = ['drafts', 'pendingDeletions', 'conflicts'] as const;

/** `data` with `note: draftsStatusNote` where any mount's report lists a draft, a deletion or a conflict. */
export function withDraftsNote<D extends { readonly mounts: readonly Report[] }>(data: D): D | (D & { note: string }) {
  const drafted = data.mounts.some((m) => DRAFT_LISTS.some((k) => Array.isArray(m[k]) && (m[k] as unknown[]).length > 0));
  return drafted ? { ...data, note: draftsStatusNote } : data;
}
