import { describe, expect, test } from 'bun:test';
import { type BranchMark, type Evidence, PATH_STATES, type PathRecords, type TreeEntry, showsFile, storedState } from '../src/index.ts';

const tree: TreeEntry = { hash: 'h1', size: 3, mode: null };
const agreed: Evidence = { kind: 'text', hash: 'h1', size: 3, mode: null, fingerprint: null };
const older: Evidence = { kind: 'text', hash: 'h0', size: 3, mode: null, fingerprint: null };
const mark = (m: Partial<BranchMark>): BranchMark => ({ origin: null, tombstone: null, conflict: null, ...m });
const conflict = mark({ conflict: { kind: 'both-changed', disk: { kind: 'absent' }, diskChangedSince: false, diskNow: 'absent' } });

describe('a path state from the store records alone', () => {
  const rows: [string, PathRecords, ReturnType<typeof storedState>][] = [
    ['a recorded conflict, whatever S holds', { tree: null, evidence: agreed, mark: conflict }, 'conflict'],
    ['a recorded conflict over a held file', { tree, evidence: older, mark: conflict }, 'conflict'],
    ['S the same text as the evidence', { tree, evidence: agreed, mark: null }, 'synced'],
    ['S other text than the evidence', { tree, evidence: older, mark: null }, 'workspace-draft'],
    ['S with no evidence', { tree, evidence: null, mark: mark({ origin: 'workspace' }) }, 'workspace-draft'],
    ['S with agreed absence', { tree, evidence: { kind: 'absent' }, mark: null }, 'workspace-draft'],
    ['no S, a tombstone', { tree: null, evidence: agreed, mark: mark({ tombstone: { base: null } }) }, 'workspace-deleted'],
    ['no S, no tombstone', { tree: null, evidence: agreed, mark: null }, null],
  ];
  for (const [name, records, state] of rows) test(name, () => expect(storedState(records)).toBe(state));

  test('every state but a workspace deletion and absent is a file of the view', () => {
    expect(PATH_STATES.filter((s) => !showsFile(s))).toEqual(['workspace-deleted']);
    expect(showsFile('absent')).toBe(false);
  });
});
