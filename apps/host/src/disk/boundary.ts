/**
 * What an agent may never reach, and what it may read but not change: ws's own files
 * (the store and every file beside it in `STORE_FILE_SUFFIXES`: WAL, index, journal,
 * locks, the token; the `.ws/` directory made for them; `.ws-tmp-*` temporary files), and the mount's `protect` patterns. The one
 * rule: these are checked on the path as resolved (every followed link spelled out), so
 * a link to the store is refused as the store is.
 */
import { mountRules } from './ignore-rules.ts';
import { STORE_FILE_SUFFIXES } from '../store/files.ts';

/** ws's temporary files carry this prefix; walks pass over them and sweep stale ones. */
export const TEMP_PREFIX = '.ws-tmp-';

/** The directory ws keeps its store in by default. */
export const WS_DIRECTORY = '.ws';


/** A mount's boundary: own files and protected paths. */
export interface Boundary {
  /** True for ws's own files and directories (mount-relative). */
  own(rel: string): boolean;
  /** True where `mount.protect` keeps the path from being changed. */
  protects(rel: string): boolean;
  /**
   * False where no entry of directory `dir` is own but by its name's {@link TEMP_PREFIX}:
   * a walk then asks {@link own} of none of them (it asks of every entry it lists).
   */
  mayHoldOwn(dir: string): boolean;
}

/**
 * The boundary of one mount. `storeRel`: the store's database, mount-relative, where it
 * lies inside the mount. `protect`: gitignore patterns.
 */
export function boundary(storeRel: string | undefined, protect: readonly string[]): Boundary {
  const storeFiles = new Set(storeRel === undefined ? [] : STORE_FILE_SUFFIXES.map((s) => `${storeRel}${s}`));
  const slash = storeRel?.lastIndexOf('/') ?? -1;
  const storeDir = storeRel !== undefined && slash > 0 ? storeRel.slice(0, slash) : undefined;
  // The directory ws made for the store: only one named `.ws`, never a person's own folder.
  const ownDir = storeDir !== undefined && storeDir.slice(storeDir.lastIndexOf('/') + 1) === WS_DIRECTORY ? storeDir : undefined;
  const rules = mountRules(protect);
  return {
    own(rel) {
      if (rel.slice(rel.lastIndexOf('/') + 1).startsWith(TEMP_PREFIX)) return true;
      if (storeFiles.has(rel)) return true;
      return ownDir !== undefined && (rel === ownDir || rel.startsWith(`${ownDir}/`));
    },
    mayHoldOwn(dir) {
      if (storeRel === undefined) return false;
      // The store's files lie in its directory; the directory made for them is an entry of its parent.
      if (dir === (storeDir ?? '')) return true;
      if (ownDir === undefined) return false;
      const cut = ownDir.lastIndexOf('/');
      return dir === (cut < 0 ? '' : ownDir.slice(0, cut)) || dir.startsWith(`${ownDir}/`);
    },
    protects(rel) {
      if (rules === undefined || rel === '') return false;
      return rules(rel, false) !== undefined || rules(rel, true) !== undefined;
    },
  };
}

/** Temporary files this process is writing now (not leftovers, whatever their age). */
const writing = new Set<string>();

/** A new temporary name for `name`, registered as being written until {@link doneWriting}. */
export function tempName(name: string): string {
  const tmp = `${TEMP_PREFIX}${name.slice(0, 64)}-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  writing.add(tmp);
  return tmp;
}

/** The temporary file is renamed or removed. */
export function doneWriting(tmp: string): void {
  writing.delete(tmp);
}

const LEFTOVER_AGE_MS = 60_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}

/**
 * True when a temporary file is a leftover: its writer is gone (the pid in its name is
 * not alive, or is this process, which is not writing it), or it is older than a minute.
 */
export function isLeftover(name: string, mtimeMs: number, nowMs: number): boolean {
  if (writing.has(name)) return false;
  const m = /-(\d+)-[a-z0-9]+$/.exec(name);
  const pid = m ? Number(m[1]) : Number.NaN;
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || !alive(pid)) return true;
  return nowMs - mtimeMs > LEFTOVER_AGE_MS;
}
