/**
 * A direct mount: disk as it is. Reads, listings and searches look at disk; writes,
 * edits and deletions change disk at once, each file atomically. It keeps nothing of
 * its own. The one rule: a commit checks every change before it writes any, and puts
 * back what it wrote if a later write fails, so a batch lands whole or not at all.
 */
import { lstatSync, readFileSync, statSync } from 'node:fs';
import type { Change, ListOutcome, Mount, ReadOutcome, Refusal, Report, SearchFile } from '@ws/tools';
import type { MountConfig } from '../config.ts';
import { atomicWrite, durableUnlink } from '../disk/atomic-write.ts';
import { looksBinary } from '@ws/reconcile';
import { containPath } from '../disk/contain.ts';
import { type WalkRules, walkRules } from '../disk/rules.ts';
import { describeFsError, newTally, walk } from '../disk/walk.ts';
import { mountWords } from './words.ts';

/** Most entries one listing or search walks before it says it is incomplete. */
export const WALK_CAP = 200_000;

function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

/** A direct mount over `config.root`. `storeRel`: the store's path inside this root, if it is. */
export function directMount(config: MountConfig, storeRel: string | undefined): Mount {
  const rules: WalkRules = walkRules(config.ignore, storeRel, config.gitignore ? config.root : undefined);
  const words = mountWords(config.name);

  function refuse(message: string): Refusal {
    return { ok: false, message };
  }

  /** Current bytes at an absolute path: null when absent; throws other errors. */
  function current(abs: string): Uint8Array | null {
    try {
      return readFileSync(abs);
    } catch (err) {
      if ((err as { code?: string }).code === 'ENOENT') return null;
      throw err;
    }
  }

  return {
    name: config.name,
    backend: 'direct',
    readOnly: config.readOnly,
    maxFileSize: config.maxFileSize,

    async read(path): Promise<ReadOutcome> {
      const where = containPath(config.root, path, config.followSymlinks);
      if (!where.ok) return { kind: 'answer', message: where.reason };
      try {
        const st = statSync(where.abs);
        if (st.isDirectory()) return { kind: 'directory' };
        if (!st.isFile()) return { kind: 'answer', message: words.notAFile(path) };
        if (st.size > config.maxFileSize) return { kind: 'answer', message: words.tooLarge(path, st.size, config.maxFileSize) };
        const bytes = readFileSync(where.abs);
        if (looksBinary(bytes)) return { kind: 'binary', size: bytes.length };
        return { kind: 'file', bytes, notes: [] };
      } catch (err) {
        if ((err as { code?: string }).code === 'ENOENT') return { kind: 'missing' };
        return { kind: 'answer', message: words.unreadable(path, describeFsError(err)) };
      }
    },

    async list(path, options): Promise<ListOutcome> {
      const where = containPath(config.root, path, config.followSymlinks);
      if (!where.ok) return refuse(where.reason);
      let st: ReturnType<typeof statSync>;
      try {
        st = statSync(where.abs);
      } catch (err) {
        return refuse((err as { code?: string }).code === 'ENOENT' ? words.missing(path) : words.unreadable(path, describeFsError(err)));
      }
      if (!st.isDirectory()) return refuse(words.notADirectory(path));
      const tally = newTally();
      const entries = [];
      for (const e of walk({ root: config.root, from: path, rules, followSymlinks: config.followSymlinks, cap: WALK_CAP, shallow: !options.recursive }, tally)) {
        if (e.kind === 'directory') {
          entries.push({ path: e.path, kind: e.kind });
          continue;
        }
        let st: ReturnType<typeof statSync>;
        try {
          st = statSync(`${config.root}/${e.path}`);
        } catch {
          continue; // vanished between the listing and the stat
        }
        entries.push({ path: e.path, kind: e.kind, size: st.size, modified: st.mtimeMs });
      }
      const incomplete = tally.incomplete ?? (tally.unreadable.length ? words.unreadableRegions(tally.unreadable) : undefined);
      return { ok: true, entries, passedOver: tally.passedOver, ...(incomplete ? { incomplete } : {}) };
    },

    async *searchFiles(path): AsyncIterable<SearchFile> {
      const where = containPath(config.root, path, config.followSymlinks);
      if (!where.ok) return;
      let st: ReturnType<typeof lstatSync>;
      try {
        st = statSync(where.abs);
      } catch {
        return;
      }
      const files = st.isDirectory()
        ? (function* () {
            for (const e of walk({ root: config.root, from: path, rules, followSymlinks: config.followSymlinks, cap: WALK_CAP }, newTally())) {
              if (e.kind === 'file') yield e.path;
            }
          })()
        : [path];
      for (const rel of files) {
        const abs = `${config.root}/${rel}`;
        try {
          const size = statSync(abs).size;
          if (size > config.maxFileSize) {
            yield { path: rel, skipped: words.overLimit(size, config.maxFileSize), tooLarge: true };
            continue;
          }
          yield { path: rel, bytes: readFileSync(abs) };
        } catch (err) {
          yield { path: rel, skipped: describeFsError(err) };
        }
      }
    },

    async commit(changes: readonly Change[]) {
      if (config.readOnly) return refuse(words.readOnly());
      // Check everything first: containment, and that each path still holds what the change was planned on.
      const planned: { path: string; abs: string; bytes: Uint8Array | null; before: Uint8Array | null }[] = [];
      for (const ch of changes) {
        const where = containPath(config.root, ch.path, config.followSymlinks);
        if (!where.ok) return refuse(where.reason);
        if (ch.bytes !== null && ch.bytes.length > config.maxFileSize) {
          return refuse(words.contentTooLarge(ch.path, ch.bytes.length, config.maxFileSize));
        }
        let before: Uint8Array | null;
        try {
          before = current(where.abs);
        } catch (err) {
          return refuse(words.unreadable(ch.path, describeFsError(err)));
        }
        if (ch.expected !== undefined && !sameBytes(before, ch.expected)) return refuse(words.changedSincePlanned(ch.path));
        if (ch.bytes === null && before === null) return refuse(words.missing(ch.path));
        planned.push({ path: ch.path, abs: where.abs, bytes: ch.bytes, before });
      }
      const done: typeof planned = [];
      try {
        for (const p of planned) {
          if (p.bytes === null) durableUnlink(p.abs);
          else atomicWrite(p.abs, p.bytes);
          done.push(p);
        }
      } catch (err) {
        // Put back what this batch already wrote, newest first.
        for (const p of done.reverse()) {
          try {
            if (p.before === null) durableUnlink(p.abs);
            else atomicWrite(p.abs, p.before);
          } catch {
            // Nothing more can be done here; the error below names the failed path.
          }
        }
        const failed = planned[done.length];
        return refuse(words.writeFailed(failed.path, describeFsError(err)));
      }
      // The receipt says what changed; a direct commit has nothing to add.
      const report: Report = {};
      return { ok: true as const, report };
    },

    async sync() {
      return { ok: true as const, report: { mount: config.name, backend: 'direct', note: words.directNothingToSync() } };
    },

    async materialize() {
      return { ok: true as const, report: { mount: config.name, backend: 'direct', note: words.directNothingToMaterialize() } };
    },

    async status(): Promise<Report> {
      return {
        mount: config.name,
        backend: 'direct',
        root: config.root,
        readOnly: config.readOnly,
        maxFileSize: config.maxFileSize,
      };
    },
  };
}
