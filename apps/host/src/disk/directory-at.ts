/**
 * Whether a contained path is a directory on disk, for the store-backed mount's context
 * (a read or listing of a path the workspace holds no file at). The one rule: it is asked
 * only of a path already contained (`contain`), and follows no more than `stat` does.
 */
import { statSync } from 'node:fs';

/** True when `abs` is a directory now (false when it is missing, a file, or cannot be checked). */
export function isDirectoryAt(abs: string): boolean {
  try {
    return statSync(abs).isDirectory();
  } catch {
    return false;
  }
}
