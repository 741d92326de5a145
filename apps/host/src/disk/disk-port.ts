/**
 * `@ws/reconcile`'s DiskPort on a real directory (node:fs, synchronous calls behind an
 * async face). The one rule: every path is contained again at the point of effect, and
 * every effect checks, just before it acts, that disk still holds what the decision saw.
 */
import {
  accessSync,
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  unlinkSync,
  writeSync,
  fsyncSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type {
  DiskPort,
  Expectation,
  FileMeta,
  Observation,
  Reading,
  RootLocation,
  UnlinkResult,
  Walk,
  WriteResult,
} from '@ws/reconcile';
import { syncDirectory, TEMP_PREFIX } from './atomic-write.ts';
import { containPath } from './contain.ts';
import type { WalkRules } from './rules.ts';
import { describeFsError, newTally, visitTree } from './walk.ts';

/** What a disk port needs to know about its mount. */
export interface DiskOptions {
  readonly root: string;
  readonly rules: WalkRules;
  readonly followSymlinks: boolean;
  /** Most files one walk returns before it says it is incomplete. */
  readonly walkCap: number;
}

/**
 * The metadata of a stat. The fingerprint is inode, size, mtime and ctime; the times are
 * milliseconds with their fraction (about 100 ns of resolution at today's dates), enough
 * that a rewrite of the same size changes it, and cheaper than BigInt stats on a walk.
 */
export function metaOf(st: Stats): FileMeta {
  return {
    size: st.size,
    mtimeMs: st.mtimeMs,
    ctimeMs: st.ctimeMs,
    mode: st.mode & 0o7777,
    fingerprint: `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`,
  };
}

function isMissing(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** A DiskPort over one mount's root. */
export function diskPort(options: DiskOptions): DiskPort {
  const { root, rules, followSymlinks, walkCap } = options;

  function observeAbs(abs: string): Observation {
    try {
      const st = statSync(abs);
      if (st.isDirectory()) return { kind: 'unobservable', reason: 'a directory is where the file was' };
      if (!st.isFile()) return { kind: 'unobservable', reason: 'it is not a regular file' };
      return { kind: 'file', meta: metaOf(st) };
    } catch (err) {
      if (isMissing(err)) return { kind: 'absent' };
      return { kind: 'unobservable', reason: describeFsError(err) };
    }
  }

  function place(path: string): { ok: true; abs: string } | { ok: false; reason: string } {
    return containPath(root, path, followSymlinks);
  }

  function matches(now: Observation, expect: Expectation): boolean {
    switch (expect.kind) {
      case 'any':
        return true;
      case 'absent':
        return now.kind === 'absent';
      case 'file':
        return now.kind === 'file' && now.meta.fingerprint === expect.fingerprint;
    }
  }

  return {
    async locateRoot(): Promise<RootLocation> {
      try {
        const st = statSync(root);
        if (!st.isDirectory()) return { kind: 'unavailable', reason: `the mount root ${root} is not a directory` };
        accessSync(root, constants.R_OK | constants.X_OK); // readable and searchable, without listing it
        return { kind: 'available', identity: `${st.dev}:${st.ino}` };
      } catch (err) {
        if (isMissing(err)) return { kind: 'unavailable', reason: `the mount root ${root} is missing` };
        return { kind: 'unavailable', reason: `the mount root ${root} cannot be read (${describeFsError(err)})` };
      }
    },

    async stat(path): Promise<Observation> {
      const where = place(path);
      if (!where.ok) return { kind: 'unobservable', reason: where.reason };
      return observeAbs(where.abs);
    },

    async read(path, maxBytes): Promise<Reading> {
      const where = place(path);
      if (!where.ok) return { kind: 'unobservable', reason: where.reason };
      for (let attempt = 0; attempt < 3; attempt++) {
        let fd: number;
        try {
          fd = openSync(where.abs, 'r');
        } catch (err) {
          if (isMissing(err)) return { kind: 'absent' };
          const code = (err as { code?: string }).code;
          if (code === 'EISDIR') return { kind: 'unobservable', reason: 'a directory is where the file was' };
          return { kind: 'unobservable', reason: describeFsError(err) };
        }
        try {
          const before = fstatSync(fd);
          if (before.isDirectory()) return { kind: 'unobservable', reason: 'a directory is where the file was' };
          if (!before.isFile()) return { kind: 'unobservable', reason: 'it is not a regular file' };
          const meta = metaOf(before);
          if (meta.size > maxBytes) return { kind: 'file', meta, bytes: null };
          const bytes = new Uint8Array(meta.size);
          let off = 0;
          while (off < bytes.length) {
            const n = readSync(fd, bytes, off, bytes.length - off, off);
            if (n === 0) break;
            off += n;
          }
          const after = metaOf(fstatSync(fd));
          if (off === bytes.length && after.fingerprint === meta.fingerprint) return { kind: 'file', meta, bytes };
          // The file changed while it was read: read it again.
        } catch (err) {
          return { kind: 'unobservable', reason: describeFsError(err) };
        } finally {
          closeSync(fd);
        }
      }
      return { kind: 'unobservable', reason: 'the file kept changing while it was read' };
    },

    async walk(dir): Promise<Walk> {
      const tally = newTally();
      const files: { path: string; meta: FileMeta }[] = [];
      const directories: string[] = [];
      const passedOver: { path: string; reason: string; directory: boolean }[] = [];
      const unreadable: { path: string; reason: string }[] = [];
      const where = place(dir);
      if (!where.ok) return { files, directories, passedOver, unreadable: [{ path: dir, reason: where.reason }], incomplete: null };
      visitTree(
        {
          root,
          from: dir,
          rules,
          followSymlinks,
          cap: walkCap,
          onPassOver: (path, reason, directory) => passedOver.push({ path, reason, directory }),
        },
        tally,
        (path, kind) => {
          if (kind === 'directory') {
            directories.push(path);
            return;
          }
          try {
            files.push({ path, meta: metaOf(statSync(`${root}/${path}`)) });
          } catch (err) {
            if (!isMissing(err)) unreadable.push({ path, reason: describeFsError(err) });
          }
        },
      );
      unreadable.push(...tally.unreadable);
      return { files, directories, passedOver, unreadable, incomplete: tally.incomplete ?? null };
    },

    async write(path, bytes, { mode, expect }): Promise<WriteResult> {
      const where = place(path);
      if (!where.ok) return { kind: 'failed', reason: where.reason };
      const dir = dirname(where.abs);
      const tmp = join(dir, `${TEMP_PREFIX}${basename(where.abs)}-${process.pid}-${Math.random().toString(36).slice(2, 10)}`);
      try {
        mkdirSync(dir, { recursive: true });
        const fd = openSync(tmp, 'wx', mode ?? 0o644);
        try {
          let off = 0;
          while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
        // The point of effect: contained still, and disk still holds what was decided on.
        const again = place(path);
        if (!again.ok) {
          rmSync(tmp, { force: true });
          return { kind: 'failed', reason: again.reason };
        }
        const now = observeAbs(where.abs);
        if (!matches(now, expect)) {
          rmSync(tmp, { force: true });
          return { kind: 'refused', now };
        }
        renameSync(tmp, where.abs);
        return { kind: 'done', meta: metaOf(statSync(where.abs)) };
      } catch (err) {
        rmSync(tmp, { force: true });
        return { kind: 'failed', reason: describeFsError(err) };
      }
    },

    async unlink(path, { expect }): Promise<UnlinkResult> {
      const where = place(path);
      if (!where.ok) return { kind: 'failed', reason: where.reason };
      const now = observeAbs(where.abs);
      if (!matches(now, expect)) return { kind: 'refused', now };
      if (now.kind === 'absent') return { kind: 'done' };
      try {
        unlinkSync(where.abs);
        return { kind: 'done' };
      } catch (err) {
        if (isMissing(err)) return { kind: 'done' };
        return { kind: 'failed', reason: describeFsError(err) };
      }
    },

    async syncDirectory(dir): Promise<void> {
      // The directory and each parent up to the root: a write may have created them.
      let at = dir;
      for (;;) {
        const where = place(at);
        if (where.ok) syncDirectory(where.abs);
        if (at === '') break;
        const slash = at.lastIndexOf('/');
        at = slash === -1 ? '' : at.slice(0, slash);
      }
    },
  };
}

