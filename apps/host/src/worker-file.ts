/**
 * Where a Worker's file lies. The one rule: the file a build names is found beside that
 * build, wherever it was installed or copied.
 *
 * From the sources and in the compiled executable, a module's `import.meta.url` is where
 * it lies, and the Worker's file is named relative to it. The bin (`build:bin`) is
 * CommonJS bundles with bytecode caches, so a command starts without parsing them; there
 * Bun fixes `import.meta.url` at build time to the source file's. So each bundle's first
 * line keeps the directory it runs from in `WS_BIN_DIR` (a variable of the bundle's own
 * scope, set nowhere else), and the file is named relative to that.
 */
declare const WS_BIN_DIR: string | undefined;

/** The URL of the Worker file `file` (relative, as the build names it) for the module at `moduleUrl`. */
export function workerUrl(file: string, moduleUrl: string): URL {
  return typeof WS_BIN_DIR === 'string' ? new URL(file, Bun.pathToFileURL(`${WS_BIN_DIR}/`)) : new URL(file, moduleUrl);
}
