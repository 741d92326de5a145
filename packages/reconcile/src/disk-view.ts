/**
 * What a pass saw of disk for one path (D), and how D compares with S, P and recorded
 * sides. The rule compares contents, never metadata: a fingerprint only vouches that the
 * bytes are what the evidence already names.
 */
import type { ContentId, DiskSide, Evidence, Hash, NotStoredWhy, TreeEntry } from './ports.ts';

/** D: disk's side of one path, as a pass observed it. */
export type DiskView =
  | { readonly kind: 'absent' }
  /** A text file within the mount's size limit, stored (or storable) as a blob. */
  | {
      readonly kind: 'text';
      readonly hash: Hash;
      readonly size: number;
      readonly mode: number | null;
      /** The fingerprint of the observed bytes (it becomes the evidence's). */
      readonly fingerprint: string;
    }
  /** A file that is not stored: binary, or over the size limit (`id`: see {@link ContentId}). */
  | {
      readonly kind: 'opaque';
      readonly why: NotStoredWhy;
      readonly id: string;
      readonly size: number;
      readonly mode: number | null;
      readonly fingerprint: string;
    }
  /** Disk could not be checked; `reason` is a full sentence. */
  | { readonly kind: 'unobservable'; readonly reason: string };

/** An observed D (anything but `unobservable`). */
export type ObservedDisk = Exclude<DiskView, { kind: 'unobservable' }>;

/** D and S hold the same: both absent, or the same text. */
export function diskEqualsTree(d: ObservedDisk, s: TreeEntry | null): boolean {
  if (d.kind === 'absent') return s === null;
  return d.kind === 'text' && s !== null && s.hash === d.hash;
}

/** D holds the content P names. */
export function diskEqualsEvidence(d: ObservedDisk, p: Evidence): boolean {
  if (p.kind === 'absent') return d.kind === 'absent';
  if (p.kind === 'text') return d.kind === 'text' && d.hash === p.hash;
  return d.kind === 'opaque' && d.why === p.why && d.id === p.id;
}

/** S holds what the store held at agreement P (nothing, for an `opaque` P). */
export function treeEqualsEvidence(s: TreeEntry | null, p: Evidence): boolean {
  if (p.kind !== 'text') return s === null;
  return s !== null && s.hash === p.hash;
}

/** Two tree entries hold the same text (or are both absent). */
export function sameTree(a: TreeEntry | null, b: TreeEntry | null): boolean {
  if (a === null || b === null) return a === b;
  return a.hash === b.hash;
}

/** D holds the content `id` names. */
export function diskHasContent(d: ObservedDisk, id: ContentId): boolean {
  if (id.kind === 'text') return d.kind === 'text' && d.hash === id.hash;
  return d.kind === 'opaque' && d.why === id.why && d.id === id.id;
}

/** The content a present D holds, or null for an absent one. */
export function contentOfDisk(d: ObservedDisk): ContentId | null {
  if (d.kind === 'absent') return null;
  if (d.kind === 'text') return { kind: 'text', hash: d.hash };
  return { kind: 'opaque', why: d.why, id: d.id };
}

/** The content evidence names (null: agreed absent). */
export function contentOfEvidence(p: Evidence): ContentId | null {
  if (p.kind === 'absent') return null;
  return p.kind === 'text' ? { kind: 'text', hash: p.hash } : { kind: 'opaque', why: p.why, id: p.id };
}

/** The evidence recording agreement on a present D. */
export function evidenceOfDisk(d: ObservedDisk): Evidence {
  if (d.kind === 'absent') return { kind: 'absent' };
  if (d.kind === 'text') {
    return { kind: 'text', hash: d.hash, size: d.size, mode: d.mode, fingerprint: d.fingerprint };
  }
  return { kind: 'opaque', why: d.why, id: d.id, size: d.size, mode: d.mode, fingerprint: d.fingerprint };
}

/** How a conflict keeps D: text stored as a blob, other files referenced, or absent. */
export function diskSideOf(d: ObservedDisk): DiskSide {
  if (d.kind === 'absent') return { kind: 'absent' };
  if (d.kind === 'text') return { kind: 'stored', hash: d.hash, size: d.size };
  return { kind: 'referenced', why: d.why, id: d.id, size: d.size };
}

/** D still holds a recorded disk side. */
export function diskMatchesSide(d: ObservedDisk, side: DiskSide): boolean {
  if (side.kind === 'absent') return d.kind === 'absent';
  if (side.kind === 'stored') return d.kind === 'text' && d.hash === side.hash;
  return d.kind === 'opaque' && d.why === side.why && d.id === side.id;
}
