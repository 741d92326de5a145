/**
 * Where a Worker's file lies. The one rule: the file a build names is found beside that
 * build, wherever it was installed or copied.
 *
 * From the sources, a module's `import.meta.url` is where it lies, and the Worker's file
 * is named relative to it. Where code was compiled to bytecode at build time, Bun fixes
 * `import.meta.url` to the source file's, which need not exist where the build runs:
 *
 * - The bin (`build:bin`) is CommonJS bundles with bytecode caches, so a command starts
 *   without parsing them. Each bundle's first line keeps the directory it runs from in
 *   `WS_BIN_DIR` (a variable of the bundle's own scope, set nowhere else), and the file
 *   is named relative to that.
 * - The compiled executable (`bun run build`, with `--bytecode`) holds its files under
 *   its own root (`/$bunfs/root/` on Linux and macOS, `B:/~BUN/root/` on Windows), where
 *   `Bun.main` is its entry; the Worker's file is named relative to that entry.
 */
declare const WS_BIN_DIR: string | undefined;

/** Whether this runs inside a compiled executable: its entry lies under the executable's own root. */
export function insideExecutable(): boolean {
  return /^\/\$bunfs\/|^[A-Za-z]:[\\/]~BUN[\\/]/.test(Bun.main);
}

/** The URL of the Worker file `file` (relative, as the build names it) for the module at `moduleUrl`. */
export function workerUrl(file: string, moduleUrl: string): URL {
  if (typeof WS_BIN_DIR === 'string') return new URL(file, Bun.pathToFileURL(`${WS_BIN_DIR}/`));
  if (insideExecutable()) return new URL(file, Bun.pathToFileURL(Bun.main));
  return new URL(file, moduleUrl);
}
