/**
 * Every sentence and clause the disk layer says, in one place. Paths in them are
 * mount-relative and cut at 200 characters, so an unbounded input is never echoed whole.
 */

/** Most characters of a path (or any echoed input) a sentence repeats. */
export const ECHO_MAX = 200;

/** `text` in quotes, cut at {@link ECHO_MAX} characters with "…". */
export function quoted(text: string): string {
  return `"${text.length > ECHO_MAX ? `${text.slice(0, ECHO_MAX)}…` : text}"`;
}

/** The disk layer's sentences (refusals: whole sentences) and clauses (reasons inside others). */
export const diskWords = {
  leaves: (rel: string) => `${quoted(rel)} leaves the mount; use a path inside it, without ".." or a leading "/".`,
  throughLink: (rel: string) => `${quoted(rel)} passes through a symbolic link, and this mount does not follow links.`,
  outside: (rel: string) => `${quoted(rel)} is a symbolic link to a place outside the mount, so it is refused.`,
  nulInPath: (rel: string) => `${quoted(rel.replaceAll('\0', '\\0'))} holds a NUL character, which no file name can; use the name without it.`,
  loop: (rel: string) => `${quoted(rel)} passes through too many symbolic links.`,
  ownFile: (rel: string) => `${quoted(rel)} is ws's own file (its store or a temporary file); no tool reads or changes it.`,
  protectedPath: (rel: string) =>
    `${quoted(rel)} is protected by the mount's \`mount.protect\` setting: it can be read but not changed. A person can change that setting in ws.toml.`,
  /** Clauses, for `unobservable` and `failed` reasons. */
  notRegular: (what: string) => `it is not a regular file (it is a ${what})`,
  linkNotFollowed: 'it is a symbolic link, and this mount does not follow links',
  isLink: 'it is a symbolic link, and ws does not replace a link with a file',
  danglingOrOutsideLink: 'it is a symbolic link that leads nowhere inside the mount',
  directoryThere: 'a directory is where the file was',
  keptChanging: 'the file kept changing while it was read',
  parentNotDirectory: 'a part of the path is not a directory',
};

/** Why a system error stopped an effect, in words (a clause). */
export function describeFsError(err: unknown): string {
  const code = (err as { code?: string }).code;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOENT':
      return 'it vanished while being read';
    case 'ENOTDIR':
      return diskWords.parentNotDirectory;
    case 'EISDIR':
      return diskWords.directoryThere;
    case 'ELOOP':
      return 'too many symbolic links';
    case 'ENOSPC':
      return 'the disk is full';
    case 'EDQUOT':
      return 'the disk quota is used up';
    case 'EROFS':
      return 'the file system is read-only';
    case 'EIO':
      return 'the disk reported an input/output error';
    case 'EMFILE':
    case 'ENFILE':
      return 'too many files are open';
    case 'ENAMETOOLONG':
      return 'the name is too long';
    case 'EBUSY':
    case 'ETXTBSY':
      return 'the file is busy';
    case 'EXDEV':
      return 'it crosses file systems';
    case 'EFBIG':
      return 'the file is too large for the file system';
    case 'ENXIO':
      return 'it is a device or socket with nothing behind it';
    case 'EEXIST':
      return 'something else appeared at the path meanwhile';
    case 'ENOTEMPTY':
      return 'the directory is not empty';
    default: {
      const text = err instanceof Error ? err.message : String(err);
      return text.length > ECHO_MAX ? `${text.slice(0, ECHO_MAX)}…` : text;
    }
  }
}
