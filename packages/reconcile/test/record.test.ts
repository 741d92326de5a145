import { describe, expect, test } from 'bun:test';
import { FROM_DISK, type RecordChange, changeRecorder, recordChanges, writeRecords } from '../src/apply.ts';
import type { MountContext } from '../src/context.ts';
import type { PathRecords, StorePort } from '../src/ports.ts';
import { FakeDisk } from './fakes/disk.ts';
import { FakeStore } from './fakes/store.ts';
import { MAX_FILE_SIZE, MOUNT } from './fakes/world.ts';
import { fakeHash } from './fakes/faults.ts';

/** A store that logs every call by name (and path, where it has one). */
function logged(atomic: boolean): { store: StorePort; log: string[] } {
  const log: string[] = [];
  const fake = new FakeStore(null, 'main', atomic);
  const store = new Proxy(fake, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const path = key === 'setEvidence' || key === 'setPending' ? args[1] : key === 'setTree' || key === 'setMark' ? args[2] : undefined;
        log.push(path === undefined ? String(key) : `${String(key)} ${path}`);
        return value.apply(target, args);
      };
    },
  });
  return { store, log };
}

function contextOf(store: StorePort): MountContext {
  return { store, disk: new FakeDisk(null, null), hash: fakeHash, mount: MOUNT, readOnly: false, maxFileSize: MAX_FILE_SIZE, isBinary: () => false, inFlight: new Set() };
}

const NONE: PathRecords = { tree: null, evidence: null, mark: null };
/** A new file taken in: S and P from nothing. */
function adoption(path: string): RecordChange {
  const after: PathRecords = { tree: { hash: `h-${path}`, size: 1, mode: null }, evidence: { kind: 'text', hash: `h-${path}`, size: 1, mode: null, fingerprint: 'f' }, mark: null };
  return { path, branch: 'main', before: NONE, after, announce: true, cause: FROM_DISK };
}
/** A fingerprint refreshed: P alone, not announced. */
function refresh(path: string): RecordChange {
  const before: PathRecords = { ...adoption(path).after };
  return { path, branch: 'main', before, after: { ...before, evidence: { kind: 'text', hash: `h-${path}`, size: 1, mode: null, fingerprint: 'g' } }, announce: false, cause: FROM_DISK };
}

describe('recording a pass’s changes', () => {
  test('on a store with atomic barriers, each change is written as it is added, none held for the end', () => {
    const { store, log } = logged(true);
    const recorder = changeRecorder(contextOf(store), { blobsPut: true });
    recorder.add(adoption('a'));
    // The blobs' barrier first, then a's records, before b is even decided.
    expect(log).toEqual(['barrier', 'setTree a', 'setEvidence a']);
    recorder.add(adoption('b'));
    expect(log.slice(3)).toEqual(['setTree b', 'setEvidence b']);
    recorder.finish();
    expect(log.slice(5)).toEqual(['barrier']);
  });

  test('on a store whose barriers are not atomic, every adoption is announced before any record is written', () => {
    const { store, log } = logged(false);
    const recorder = changeRecorder(contextOf(store));
    recorder.add(adoption('a'));
    recorder.add(refresh('b'));
    expect(log).toEqual([]);
    recorder.finish();
    const firstWrite = log.findIndex((l) => l.startsWith('setTree') || l.startsWith('setEvidence'));
    expect(log.slice(0, firstWrite)).toEqual(['setPending a', 'barrier']);
    expect(log.slice(-2)).toEqual(['setPending a', 'barrier']);
  });

  for (const atomic of [true, false]) {
    test(`a recorder fed one change at a time makes the calls recording them all at once makes (${atomic ? 'atomic' : 'non-atomic'} barriers)`, () => {
      const cases: { changes: RecordChange[]; blobsPut: boolean; extra: boolean }[] = [];
      for (const changes of [[], [refresh('a')], [adoption('a'), refresh('b'), adoption('c')]]) {
        for (const blobsPut of [false, true]) for (const extra of [false, true]) cases.push({ changes, blobsPut, extra });
      }
      for (const { changes, blobsPut, extra } of cases) {
        const whole = logged(atomic);
        allAtOnce(contextOf(whole.store), changes, { blobsPut, ...(extra ? { extra: () => (whole.store.setRootIdentity(MOUNT, 'r'), true) } : {}) });
        const one = logged(atomic);
        const recorder = changeRecorder(contextOf(one.store), { blobsPut, ...(extra ? { extra: () => (one.store.setRootIdentity(MOUNT, 'r'), true) } : {}) });
        for (const c of changes) recorder.add(c);
        recorder.finish();
        expect(one.log).toEqual(whole.log);
        const again = logged(atomic);
        recordChanges(contextOf(again.store), changes, { blobsPut, ...(extra ? { extra: () => (again.store.setRootIdentity(MOUNT, 'r'), true) } : {}) });
        expect(again.log).toEqual(whole.log);
      }
    });
  }
});

/** Recording every change at once, as passes did before the recorder (the reference the recorder must match). */
function allAtOnce(ctx: MountContext, changes: readonly RecordChange[], options: { blobsPut?: boolean; extra?: () => boolean }): void {
  const { store, mount } = ctx;
  const announced = store.atomicBarriers === true ? [] : changes.filter((c) => c.announce);
  for (const c of announced) store.setPending(mount, c.path, { kind: 'adopt', branch: c.branch, before: c.before, after: c.after });
  if (announced.length > 0 || (options.blobsPut && changes.length > 0)) store.barrier();
  let wrote = options.extra ? options.extra() : false;
  for (const c of changes) wrote = writeRecords(store, mount, c) || wrote;
  if (wrote) store.barrier();
  for (const c of announced) store.setPending(mount, c.path, null);
  if (announced.length > 0) store.barrier();
}
