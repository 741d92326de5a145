/**
 * What a long-running host's greps learnt of the store's blobs: which hold no line
 * matching a search, kept for the searches made last. A blob is its text, named by the
 * text's SHA-256, and never changes, so a blob a search's scan found no line in is not
 * read or scanned again for that search: the same grep again, a page after the first
 * (`offset`), the same pattern in another output mode or under another path. A file whose
 * text changed is another blob, scanned afresh.
 *
 * The one rule: a blob is remembered for a search only where a scan of it under exactly
 * that search (its pattern and every option its scan is given, `searchKey`) said no line
 * matches — a Worker's `'none'`, never a scan cut short or one that gave up on a line —
 * and nothing else is left out of a search for it.
 *
 * Bounded: at most {@link MEMO_SEARCHES} searches and {@link MEMO_BLOBS} blobs in all; the
 * search used longest ago goes first, and a search past the bound alone learns no more.
 */
import type { PrescanJob } from './prescan.ts';

/** The most searches remembered at once. */
export const MEMO_SEARCHES = 16;
/** The most blobs remembered in all (each a hash the store's plan holds anyway: some 100 bytes). */
export const MEMO_BLOBS = 200_000;

/** The blobs one search found no line in. */
export interface NoLines {
  has(hash: string): boolean;
  /** Remembers `hash` (a scan under this search said no line of it matches). */
  add(hash: string): void;
}

/** A search as its scans see it: the pattern and every option a Worker's scan is given. */
export function searchKey(job: Pick<PrescanJob, 'pattern' | 'options'>): string {
  return `${JSON.stringify(job.options)}\u0000${job.pattern}`;
}

export class NoLineMemo {
  /** Each search's blobs, the search used longest ago first. */
  private readonly searches = new Map<string, Set<string>>();
  private blobs = 0;

  constructor(
    private readonly mostBlobs = MEMO_BLOBS,
    private readonly mostSearches = MEMO_SEARCHES,
  ) {}

  /** The blobs remembered for the search `key`, which is now the one used last. */
  search(key: string): NoLines {
    let known = this.searches.get(key);
    if (known !== undefined) this.searches.delete(key);
    else known = new Set();
    this.searches.set(key, known);
    this.trim(key);
    const set = known;
    return {
      has: (hash) => set.has(hash),
      add: (hash) => {
        // A search forgotten meanwhile (others were used since) learns no more.
        if (set.has(hash) || this.searches.get(key) !== set) return;
        if (this.blobs >= this.mostBlobs) this.trim(key, 1);
        if (this.blobs >= this.mostBlobs) return;
        set.add(hash);
        this.blobs++;
      },
    };
  }

  /** Searches remembered, and blobs in all (for tests). */
  get size(): { searches: number; blobs: number } {
    return { searches: this.searches.size, blobs: this.blobs };
  }

  /** Forgets searches used longest ago (never `keep`) until the bounds hold, with room for `room` more blobs. */
  private trim(keep: string, room = 0): void {
    for (const [key, set] of this.searches) {
      if (this.searches.size <= this.mostSearches && this.blobs + room <= this.mostBlobs) return;
      if (key === keep) continue;
      this.searches.delete(key);
      this.blobs -= set.size;
    }
  }
}
