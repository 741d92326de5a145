/**
 * The file system's change notices for a mount root (`fs.watch`, recursive), so the
 * watcher module needs no `node:fs` of its own. The one rule: a notice only names a
 * path to pass over; nothing is read or changed here.
 */
import { type FSWatcher, watch } from 'node:fs';

/** A running watch. */
export interface TreeWatch {
  close(): void;
}

/**
 * Watches `root` and everything beneath it; `onChange` gets each changed mount-relative
 * path, `onError` a clause when the watch stops. Throws where the root cannot be watched.
 */
export function watchTree(root: string, onChange: (rel: string) => void, onError: (why: string) => void): TreeWatch {
  const watcher: FSWatcher = watch(root, { recursive: true }, (_event, name) => {
    if (typeof name === 'string' && name !== '') onChange(name.split('\\').join('/'));
  });
  watcher.on('error', (err) => onError(err.message));
  return { close: () => watcher.close() };
}
