import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import {
  type BranchMark,
  type ConflictKind,
  type DecideInput,
  type DiskView,
  type Evidence,
  PATH_STATES,
  type Standing,
  type TakeDisk,
  type TreeEntry,
  decide,
  draftKind,
} from '../src/index.ts';

const D = (hash: string, mode: number | null = 0o644): DiskView => ({ kind: 'text', hash, size: 1, mode, fingerprint: `fp-${hash}` });
const BIN = (id: string): DiskView => ({ kind: 'opaque', why: 'binary', id, size: 1, mode: 0o644, fingerprint: `fp-${id}` });
const LARGE = (id: string): DiskView => ({ kind: 'opaque', why: 'too-large', id, size: 999, mode: 0o644, fingerprint: id });
const ABSENT: DiskView = { kind: 'absent' };
const S = (hash: string, mode: number | null = 0o644): TreeEntry => ({ hash, size: 1, mode });
const P = (hash: string, mode: number | null = 0o644): Evidence => ({ kind: 'text', hash, size: 1, mode, fingerprint: `fp-${hash}` });
const PBIN = (id: string): Evidence => ({ kind: 'opaque', why: 'binary', id, size: 1, mode: 0o644, fingerprint: `fp-${id}` });
const mark = (m: Partial<BranchMark>): BranchMark => ({ origin: null, tombstone: null, conflict: null, ...m });
const recorded = (kind: ConflictKind, diskHash: string | null): BranchMark =>
  mark({
    conflict: {
      kind,
      disk: diskHash === null ? { kind: 'absent' } : { kind: 'stored', hash: diskHash, size: 1 },
      diskChangedSince: false,
      diskNow: diskHash === null ? 'absent' : 'file',
    },
  });

const input = (disk: DiskView, tree: TreeEntry | null, evidence: Evidence | null, m: BranchMark | null = null, takeDisk?: TakeDisk): DecideInput => ({
  disk,
  tree,
  evidence,
  mark: m,
  ...(takeDisk ? { takeDisk } : {}),
});

interface Row {
  readonly name: string;
  readonly input: DecideInput;
  readonly state: Standing;
  /** What S becomes: a hash, null (no file), or 'same'. */
  readonly tree: string | null | 'same';
  /** What P becomes: a hash or id, null (unknown), or 'same'. */
  readonly evidence: string | null | 'same';
  readonly taken?: string;
  readonly conflict?: ConflictKind;
  readonly settled?: ConflictKind;
}

// One row per case of the README's "The rule" (hashes: p = last agreed, s = the store's, d = disk's).
const rows: Row[] = [
  { name: 'agreement: D = S with P behind them both moves P to D', input: input(D('x'), S('x'), P('p')), state: 'synced', tree: 'x', evidence: 'x' },
  { name: 'agreement: D = S with no evidence records P', input: input(D('x'), S('x'), null), state: 'synced', tree: 'x', evidence: 'x' },
  { name: 'agreement on absence is recorded as agreed absence', input: input(ABSENT, null, P('p'), mark({ tombstone: { base: null } })), state: 'absent', tree: null, evidence: 'absent' },
  { name: 'a path nobody ever had stays unrecorded', input: input(ABSENT, null, null), state: 'absent', tree: null, evidence: null },
  { name: 'P agreed absent: a file the branch has and disk lacks is a draft', input: input(ABSENT, S('s'), { kind: 'absent' }), state: 'workspace-draft', tree: 's', evidence: 'absent' },
  { name: 'P agreed absent: a new disk file is ingested', input: input(D('d'), null, { kind: 'absent' }), state: 'synced', tree: 'd', evidence: 'd', taken: 'text' },
  { name: 'P known, D = P: a draft stands', input: input(D('p'), S('s'), P('p')), state: 'workspace-draft', tree: 's', evidence: 'p' },
  { name: 'P known, D = P: a workspace deletion stands', input: input(D('p'), null, P('p'), mark({ tombstone: { base: { kind: 'text', hash: 'p' } } })), state: 'workspace-deleted', tree: null, evidence: 'p' },
  { name: "P known, D = P: a file this branch doesn't have stands", input: input(D('p'), null, P('p')), state: 'not-in-branch', tree: null, evidence: 'p' },
  { name: 'P known, S = P: disk changed, its text is ingested', input: input(D('d'), S('p'), P('p')), state: 'synced', tree: 'd', evidence: 'd', taken: 'text' },
  { name: 'P known, S = P: disk deleted it, the deletion is taken', input: input(ABSENT, S('p'), P('p')), state: 'absent', tree: null, evidence: 'absent', taken: 'deletion' },
  { name: 'P known, S = P: disk made it binary, S is dropped (disk-only)', input: input(BIN('b'), S('p'), P('p')), state: 'disk-only', tree: null, evidence: 'b', taken: 'not-stored' },
  { name: 'P known, S = P: disk made it too large, S is dropped (disk-only)', input: input(LARGE('L'), S('p'), P('p')), state: 'disk-only', tree: null, evidence: 'L', taken: 'not-stored' },
  { name: 'P known, all differ, disk deleted: deleted-on-disk', input: input(ABSENT, S('s'), P('p')), state: 'conflict', tree: 's', evidence: 'p', conflict: 'deleted-on-disk' },
  { name: 'P known, all differ, workspace deleted: changed-after-workspace-delete', input: input(D('d'), null, P('p'), mark({ tombstone: { base: { kind: 'text', hash: 'p' } } })), state: 'conflict', tree: null, evidence: 'p', conflict: 'changed-after-workspace-delete' },
  { name: 'P known, all differ: both-changed', input: input(D('d'), S('s'), P('p')), state: 'conflict', tree: 's', evidence: 'p', conflict: 'both-changed' },
  { name: 'P unknown: a tombstone over the file it removed stands', input: input(D('t'), null, null, mark({ tombstone: { base: { kind: 'text', hash: 't' } } })), state: 'workspace-deleted', tree: null, evidence: null },
  { name: 'P unknown: a tombstone over a different disk file is a conflict', input: input(D('d'), null, null, mark({ tombstone: { base: { kind: 'text', hash: 't' } } })), state: 'conflict', tree: null, evidence: null, conflict: 'changed-after-workspace-delete' },
  { name: 'P unknown: S written by the workspace, no disk copy: a draft', input: input(ABSENT, S('s'), null, mark({ origin: 'workspace' })), state: 'workspace-draft', tree: 's', evidence: null },
  {
    name: "P unknown: S written by the workspace, disk holds a text another host's disk agreed on: a draft over it, P := D",
    input: { ...input(D('d'), S('s'), null, mark({ origin: 'workspace' })), agreedElsewhere: ['e', 'd'] },
    state: 'workspace-draft',
    tree: 's',
    evidence: 'd',
  },
  {
    name: 'P unknown: S written by the workspace, disk holds a text no host agreed on: store-origin-collision',
    input: { ...input(D('d'), S('s'), null, mark({ origin: 'workspace' })), agreedElsewhere: ['e'] },
    state: 'conflict',
    tree: 's',
    evidence: null,
    conflict: 'store-origin-collision',
  },
  { name: 'P unknown: S written by the workspace, a different disk file: store-origin-collision', input: input(D('d'), S('s'), null, mark({ origin: 'workspace' })), state: 'conflict', tree: 's', evidence: null, conflict: 'store-origin-collision' },
  { name: 'P unknown: S taken from disk, disk changed: adopted', input: input(D('d'), S('s'), null, mark({ origin: 'disk' })), state: 'synced', tree: 'd', evidence: 'd', taken: 'text' },
  { name: 'P unknown: S taken from disk, disk deleted it: deletion taken', input: input(ABSENT, S('s'), null, mark({ origin: 'disk' })), state: 'absent', tree: null, evidence: 'absent', taken: 'deletion' },
  { name: 'P unknown: S of unknown origin and no disk copy: disk-missing-provenance-unknown', input: input(ABSENT, S('s'), null), state: 'disk-missing-provenance-unknown', tree: 's', evidence: null },
  { name: 'P unknown: S of unknown origin and a different disk file: unknown-provenance', input: input(D('d'), S('s'), null), state: 'conflict', tree: 's', evidence: null, conflict: 'unknown-provenance' },
  { name: 'P unknown: a new disk text file is ingested', input: input(D('d'), null, null), state: 'synced', tree: 'd', evidence: 'd', taken: 'text' },
  { name: 'P unknown: a new binary disk file is listed disk-only', input: input(BIN('b'), null, null), state: 'disk-only', tree: null, evidence: 'b', taken: 'not-stored' },
  { name: 'P unknown: a new over-size disk file is listed disk-only', input: input(LARGE('L'), null, null), state: 'disk-only', tree: null, evidence: 'L', taken: 'not-stored' },
  { name: 'disk-only stays disk-only while disk keeps the same file', input: input(BIN('b'), null, PBIN('b')), state: 'disk-only', tree: null, evidence: 'b' },
  { name: 'a workspace deletion of a disk-only file stands', input: input(BIN('b'), null, PBIN('b'), mark({ tombstone: { base: null } })), state: 'workspace-deleted', tree: null, evidence: 'b' },
  { name: 'a disk change after the workspace deleted a disk-only file is a conflict', input: input(D('d'), null, PBIN('b'), mark({ tombstone: { base: null } })), state: 'conflict', tree: null, evidence: 'b', conflict: 'changed-after-workspace-delete' },
  { name: 'a workspace write over a disk-only file is a draft', input: input(BIN('b'), S('s'), PBIN('b')), state: 'workspace-draft', tree: 's', evidence: 'b' },
  { name: 'a mode change alone is taken in silently', input: input(D('p', 0o755), S('p', 0o644), P('p', 0o644)), state: 'synced', tree: 'p', evidence: 'p', taken: 'mode' },
  { name: 'a mode change under a draft is taken in and the draft stands', input: input(D('p', 0o755), S('s'), P('p', 0o644)), state: 'workspace-draft', tree: 's', evidence: 'p', taken: 'mode' },
  { name: 'a recorded conflict is kept while D and S still differ, even if D returns to P', input: input(D('p'), S('s'), P('p'), recorded('both-changed', 'd')), state: 'conflict', tree: 's', evidence: 'p', conflict: 'both-changed' },
  { name: 'a recorded conflict settles when D and S converge', input: input(D('s'), S('s'), P('p'), recorded('both-changed', 'd')), state: 'synced', tree: 's', evidence: 's', settled: 'both-changed' },
  { name: 'a recorded deleted-on-disk conflict settles when the workspace deletes too', input: input(ABSENT, null, P('p'), recorded('deleted-on-disk', null)), state: 'absent', tree: null, evidence: 'absent', settled: 'deleted-on-disk' },
  { name: 'unobserved disk: unverified, nothing changes', input: input({ kind: 'unobservable', reason: 'Disk could not be checked: permission denied.' }, S('s'), P('p')), state: 'unverified', tree: 's', evidence: 'p' },
  { name: 'unobserved disk over a conflict: unverified, the conflict stays recorded', input: input({ kind: 'unobservable', reason: 'r' }, S('s'), P('p'), recorded('both-changed', 'd')), state: 'unverified', tree: 's', evidence: 'p', conflict: 'both-changed' },
  { name: 'a path sync keeps a draft disk has not changed', input: input(D('p'), S('s'), P('p'), null, 'sync-path'), state: 'workspace-draft', tree: 's', evidence: 'p' },
  { name: 'a discard gives up a draft for disk', input: input(D('p'), S('s'), P('p'), null, 'discard'), state: 'synced', tree: 'p', evidence: 'p', taken: 'text' },
  { name: "a path sync takes disk's deletion over a conflict", input: input(ABSENT, S('s'), P('p'), recorded('deleted-on-disk', null), 'sync-path'), state: 'absent', tree: null, evidence: 'absent', taken: 'deletion', settled: 'deleted-on-disk' },
  { name: "a sync of a directory takes disk's copy over a conflict", input: input(D('d'), S('s'), P('p'), recorded('both-changed', 'd'), 'sync'), state: 'synced', tree: 'd', evidence: 'd', taken: 'text', settled: 'both-changed' },
];

function hashOfTree(t: TreeEntry | null): string | null {
  return t === null ? null : t.hash;
}
function idOfEvidence(p: Evidence | null): string | null {
  return p === null ? null : p.kind === 'text' ? p.hash : p.kind === 'opaque' ? p.id : 'absent';
}

describe('decide: one row per case of the rule', () => {
  for (const row of rows) {
    test(row.name, () => {
      const d = decide(row.input);
      expect(d.state).toBe(row.state);
      expect(hashOfTree(d.next.tree)).toBe(row.tree === 'same' ? hashOfTree(row.input.tree) : row.tree);
      expect(idOfEvidence(d.next.evidence)).toBe(row.evidence === 'same' ? idOfEvidence(row.input.evidence) : row.evidence);
      expect<string | null>(d.taken?.kind ?? null).toBe(row.taken ?? null);
      expect(d.next.mark?.conflict?.kind ?? null).toBe(row.conflict ?? null);
      expect(d.settled).toBe(row.settled ?? null);
    });
  }

  test('a conflict records where its disk side is kept: stored text, a reference, or absent', () => {
    expect(decide(input(D('d'), S('s'), P('p'))).next.mark?.conflict?.disk).toEqual({ kind: 'stored', hash: 'd', size: 1 });
    expect(decide(input(BIN('b'), S('s'), P('p'))).next.mark?.conflict?.disk).toEqual({ kind: 'referenced', why: 'binary', id: 'b', size: 1 });
    expect(decide(input(ABSENT, S('s'), P('p'))).next.mark?.conflict?.disk).toEqual({ kind: 'absent' });
  });

  test('a kept conflict notes that disk changed since, and what disk holds now', () => {
    const kept = decide(input(ABSENT, S('s'), P('p'), recorded('both-changed', 'd'))).next.mark?.conflict;
    expect(kept?.diskChangedSince).toBe(true);
    expect(kept?.diskNow).toBe('absent');
    const same = decide(input(D('d'), S('s'), P('p'), recorded('both-changed', 'd'))).next.mark?.conflict;
    expect(same?.diskChangedSince).toBe(false);
    expect(same?.diskNow).toBe('file');
  });

  test('a sync keeps a draft or deletion disk has not changed, and gives up only a conflict', () => {
    const tomb = mark({ tombstone: { base: { kind: 'text', hash: 'p' } } });
    for (const mode of ['sync', 'sync-path'] as const) {
      const deleted = decide(input(D('p'), null, P('p'), tomb, mode));
      expect({ mode, state: deleted.state, gaveUp: deleted.gaveUp }).toEqual({ mode, state: 'workspace-deleted', gaveUp: null });
      const drafted = decide(input(D('p'), S('s'), P('p'), null, mode));
      expect({ mode, state: drafted.state, tree: drafted.next.tree }).toEqual({ mode, state: 'workspace-draft', tree: S('s') });
      const unknown = decide(input(ABSENT, S('s'), null, null, mode));
      expect({ mode, state: unknown.state, gaveUp: unknown.gaveUp }).toEqual({ mode, state: 'disk-missing-provenance-unknown', gaveUp: null });
      expect(decide(input(D('d'), S('s'), P('p'), null, mode)).gaveUp).toEqual({ state: 'conflict', conflict: 'both-changed', workspace: S('s') });
      expect(decide(input(D('x'), S('x'), P('p'), null, mode)).gaveUp).toBeNull();
    }
    // A file the branch doesn't have takes disk's copy in only for a named path.
    expect(decide(input(D('p'), null, P('p'), null, 'sync-path'))).toMatchObject({ state: 'synced', gaveUp: { state: 'not-in-branch' } });
    expect(decide(input(D('p'), null, P('p'), null, 'sync'))).toMatchObject({ state: 'not-in-branch', gaveUp: null });
  });

  test('a discard gives up every draft, deletion and conflict for disk’s copy, and says which', () => {
    const tomb = mark({ tombstone: { base: { kind: 'text', hash: 'p' } } });
    expect(decide(input(D('p'), null, P('p'), tomb, 'discard'))).toMatchObject({ state: 'synced', gaveUp: { state: 'workspace-deleted' }, next: { tree: { hash: 'p' }, mark: null } });
    expect(decide(input(D('p'), S('s'), P('p'), null, 'discard'))).toMatchObject({ state: 'synced', gaveUp: { state: 'workspace-draft', workspace: S('s') } });
    expect(decide(input(ABSENT, S('s'), null, null, 'discard'))).toMatchObject({ state: 'absent', gaveUp: { state: 'disk-missing-provenance-unknown' } });
    expect(decide(input(ABSENT, S('s'), P('p'), null, 'discard'))).toMatchObject({ state: 'absent', gaveUp: { state: 'conflict', conflict: 'deleted-on-disk' } });
    expect(decide(input(D('p'), null, P('p'), null, 'discard'))).toMatchObject({ state: 'not-in-branch', gaveUp: null });
    expect(decide(input(D('x'), S('x'), P('p'), null, 'discard')).gaveUp).toBeNull();
  });

  test('a discard where disk can’t be checked goes back to the last agreement, or keeps the draft where there is none', () => {
    const hidden: DiskView = { kind: 'unobservable', reason: 'r' };
    const back = decide(input(hidden, S('s'), P('p'), recorded('both-changed', 'd'), 'discard'));
    expect(back).toMatchObject({ state: 'unverified', reason: 'r', settled: 'both-changed', gaveUp: { state: 'conflict', workspace: S('s') } });
    expect(back.next).toEqual({ tree: { hash: 'p', size: 1, mode: 0o644 }, evidence: P('p'), mark: null });
    expect(decide(input(hidden, null, P('p'), mark({ tombstone: { base: { kind: 'text', hash: 'p' } } }), 'discard')).next.tree).toEqual({ hash: 'p', size: 1, mode: 0o644 });
    const kept = decide(input(hidden, S('s'), null, null, 'discard'));
    expect(kept).toMatchObject({ state: 'unverified', gaveUp: null, next: { tree: S('s') } });
  });
});

describe('decide: properties over every input', () => {
  const hash = fc.constantFrom('a', 'b', 'c');
  const diskArb: fc.Arbitrary<DiskView> = fc.oneof(
    fc.constant(ABSENT),
    hash.map((h) => D(h)),
    hash.map((h) => D(h, 0o755)),
    hash.map((h) => BIN(`bin-${h}`)),
    hash.map((h) => LARGE(`big-${h}`)),
    fc.constant<DiskView>({ kind: 'unobservable', reason: 'r' }),
  );
  const treeArb = fc.option(hash.map((h) => S(h)), { nil: null });
  const evidenceArb = fc.option(fc.oneof(hash.map((h) => P(h)), hash.map((h) => PBIN(`bin-${h}`)), fc.constant<Evidence>({ kind: 'absent' })), { nil: null });
  const markArb = fc.option(
    fc.record({
      origin: fc.constantFrom<BranchMark['origin']>('workspace', 'disk', null),
      tombstone: fc.option(fc.record({ base: fc.option(hash.map((h) => ({ kind: 'text' as const, hash: h })), { nil: null }) }), { nil: null }),
      conflict: fc.option(
        fc.record({
          kind: fc.constantFrom<ConflictKind>('both-changed', 'deleted-on-disk', 'interrupted'),
          disk: fc.constant({ kind: 'absent' as const }),
          diskChangedSince: fc.boolean(),
          diskNow: fc.constantFrom<'file' | 'absent'>('file', 'absent'),
        }),
        { nil: null },
      ),
    }),
    { nil: null },
  );
  const inputArb = fc.record({
    disk: diskArb,
    tree: treeArb,
    evidence: evidenceArb,
    mark: markArb,
    takeDisk: fc.constantFrom<TakeDisk | undefined>(undefined, 'sync', 'sync-path', 'discard'),
  });

  test('total and deterministic: one known state for every input, the same each time', () => {
    fc.assert(
      fc.property(inputArb, (i) => {
        const a = decide(i);
        expect([...PATH_STATES, 'absent']).toContain(a.state);
        expect(decide(i)).toEqual(a);
      }),
      { numRuns: 3000 },
    );
  });

  test('without a sync or discard, S changes only by taking in disk: never a draft or deletion dropped', () => {
    fc.assert(
      fc.property(inputArb, (i) => {
        const { takeDisk: _, ...plain } = i;
        const d = decide(plain);
        if (hashOfTree(d.next.tree) === hashOfTree(i.tree)) return;
        // S moved: it must now hold D's text (or nothing, for D absent / not stored) ...
        const disk = i.disk;
        expect(disk.kind).not.toBe('unobservable');
        expect(hashOfTree(d.next.tree)).toBe(disk.kind === 'text' ? disk.hash : null);
        // ... and what it held was the store's side of the agreement, or disk's by origin.
        const p = i.evidence;
        const storeSideOfP = p !== null && p.kind === 'text' ? p.hash : null;
        const tombstoned = i.tree === null && (i.mark?.tombstone ?? null) !== null;
        const sWasAgreed = !tombstoned && (p !== null ? hashOfTree(i.tree) === storeSideOfP : i.tree === null || i.mark?.origin === 'disk');
        expect(sWasAgreed).toBe(true);
        expect(i.mark?.conflict ?? null).toBeNull();
      }),
      { numRuns: 3000 },
    );
  });

  test('a decision is a fixpoint: deciding again on its records with the same D changes nothing', () => {
    fc.assert(
      fc.property(inputArb, (i) => {
        const first = decide(i);
        const again = decide({ ...first.next, disk: i.disk });
        expect(again.next).toEqual(first.next);
        expect(again.state).toBe(first.state);
        expect(again.taken).toBeNull();
      }),
      { numRuns: 3000 },
    );
  });

  test('a sync gives up only a conflict (and, for a named path, a file the branch lacks); every other decision is the rule’s', () => {
    fc.assert(
      fc.property(inputArb, (i) => {
        if (i.takeDisk !== 'sync' && i.takeDisk !== 'sync-path') return;
        const { takeDisk: _, ...plain } = i;
        const rule = decide(plain);
        const d = decide(i);
        if (d.gaveUp === null) {
          expect(d).toEqual(rule);
          return;
        }
        const allowed = i.takeDisk === 'sync-path' ? ['conflict', 'not-in-branch'] : ['conflict'];
        expect(allowed).toContain(rule.state);
        expect(hashOfTree(d.next.tree)).toBe(i.disk.kind === 'text' ? i.disk.hash : null);
      }),
      { numRuns: 3000 },
    );
  });

  test('a discard over an observed disk leaves no draft: S holds what D holds wherever there was one', () => {
    fc.assert(
      fc.property(inputArb, (i) => {
        if (i.disk.kind === 'unobservable') return;
        const d = decide({ ...i, takeDisk: 'discard' });
        expect(draftKind(d.state, d.next)).toBeNull();
        expect(d.next.mark?.conflict ?? null).toBeNull();
        if (d.gaveUp !== null) expect(hashOfTree(d.next.tree)).toBe(i.disk.kind === 'text' ? i.disk.hash : null);
      }),
      { numRuns: 3000 },
    );
  });

  test('P moves only onto what D holds, and only when S holds it too (or disk-only)', () => {
    fc.assert(
      fc.property(inputArb, (i) => {
        const d = decide(i);
        const before = idOfEvidence(i.evidence);
        const after = idOfEvidence(d.next.evidence);
        if (after === before || after === null) return;
        const disk = i.disk;
        expect(disk.kind === 'text' ? disk.hash : disk.kind === 'opaque' ? disk.id : disk.kind).toBe(after);
        if (disk.kind === 'text') expect(hashOfTree(d.next.tree)).toBe(after);
        else expect(d.next.tree).toBeNull();
      }),
      { numRuns: 3000 },
    );
  });
});
