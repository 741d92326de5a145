/**
 * Every sentence the host's mounts say to a model or a person, in one place so tests
 * and docs can refer to it. Paths in sentences are mount-prefixed (`work/a.txt`).
 */

/** Echoed input and outside messages in a sentence are cut to this many characters, with "…". */
export const ECHO_MAX = 200;

function cut(text: string): string {
  return text.length <= ECHO_MAX ? text : `${text.slice(0, ECHO_MAX)}…`;
}

/** The sentences of one mount, with its name filled in. */
export function mountWords(mount: string) {
  const at = (path: string) => (path === '' ? `${mount}/` : `${mount}/${path}`);
  return {
    readOnly: () => `Mount "${mount}" is read-only; it refuses writes, edits and deletions.`,
    missing: (path: string) => `${at(path)} does not exist.`,
    notAFile: (path: string) => `${at(path)} is not a regular file.`,
    notADirectory: (path: string) => `${at(path)} is a file, not a directory; read it instead.`,
    tooLarge: (path: string, size: number, max: number) =>
      `${at(path)} is ${size} bytes, over mount "${mount}"'s limit of ${max} bytes, so it is not read.`,
    /** Why grep found nothing beneath a directory it was named: the walk passes over it. */
    namedPassedOver: (reason: string) =>
      `a directory the walk passes over (${reason}), so nothing beneath it was searched: name a file in it to search that file, or change the rule (the mount's ignore, or gitignore = false)`,
    overLimit: (size: number, max: number) => `${size} bytes, over the mount's limit of ${max} bytes`,
    unreadable: (path: string, why: string) => `${at(path)} could not be read: ${why}.`,
    unreadableRegions: (regions: readonly { path: string; reason: string }[]) =>
      `some directories could not be read: ${regions
        .slice(0, 5)
        .map((r) => `${at(r.path)} (${r.reason})`)
        .join(', ')}${regions.length > 5 ? ` and ${regions.length - 5} more` : ''}`,
    changedSincePlanned: (path: string) =>
      `${at(path)} changed while the call was being planned; nothing was stored. Read it again and retry.`,
    keptChanging: (path: string, times: number) =>
      `${at(path)} changed on disk, or another process held it open for writing, each of the ${times} times this call was about to store its change; nothing was stored. Try again when it is quiet, or close the program writing to it.`,
    writeFailed: (path: string, why: string) =>
      `Writing ${at(path)} failed (${why}); nothing in this call was stored.`,
    /** A file written where the workspace or disk has a directory. */
    directoryInTheWay: (path: string) =>
      `${at(path)} is a directory, so no file can take its place; nothing was stored. Name a file inside it (${at(path)}/…).`,
    /** A deletion of a path the workspace or disk has as a directory. */
    directoryNotDeleted: (path: string) => `${at(path)} is a directory; delete removes one file: name a file inside it (${at(path)}/…).`,
    /** A file written beneath a path the workspace or disk has as a file. */
    fileInTheWay: (file: string, path: string) => `${at(file)} is a file, so ${at(path)} cannot be made inside it; nothing was stored.`,
    contentTooLarge: (path: string, size: number, max: number) =>
      `The new content of ${at(path)} is ${size} bytes, over mount "${mount}"'s limit of ${max} bytes; nothing was stored.`,
    /** The mount-prefixed path, as sentences (and the tools' sentences) name it. */
    shown: (path: string) => at(path),
    historyOfDirectory: (path: string) => `${at(path)} is a directory; history lists one file's versions: name a file in it.`,
    versionMissingBlob: (path: string, id: string) =>
      `The store lists version ${id} of ${at(path)} but no longer holds its text; restore another version from history.`,
    notDiscarded: () =>
      'Disk could not be checked for these paths and the store records no version disk and the workspace agreed on, so their drafts were kept; discard them again once disk can be read.',
    acceptNewRoot: () =>
      `If this directory is mount "${mount}" now (it was moved or re-created on purpose), a person can run \`ws sync --accept-new-root ${mount}\` to take it as the mount.`,
    /** An unexpected failure (a disk call that threw), cut to one line: what failed, on which path. */
    failed: (verb: string, path: string | undefined, why: string) =>
      `${verb} ${path === undefined ? `mount "${mount}"` : at(path)} failed: ${cut(why.split('\n')[0])}.`,
    gaveUp: (reason: string) => `Disk could not be checked: ${reason}. Nothing was decided; try again.`,
    materializeCancelled: (written: number, left: number) =>
      `The call was cancelled after ${written} file${written === 1 ? ' was' : 's were'} written whole; the other ${left} ${left === 1 ? 'is' : 'are'} still drafts, untouched on disk: materialize again to write them.`,
    directNothingToSync: () => `Mount "${mount}" is direct: it reads disk as it is, so there is nothing to sync.`,
    directNothingToMaterialize: () =>
      `Mount "${mount}" is direct: its changes are written to disk at once, so there is nothing to materialize.`,
  };
}
