/**
 * The review page's static files, read from the folder beside the code that serves them.
 * The one rule: only a bare file name from the page's own list is read — never a path a
 * request could steer elsewhere.
 */

/** A page file's bytes, or undefined where it is not there (a build without the page). */
export async function readPageFile(folder: URL, name: string): Promise<Uint8Array | undefined> {
  if (!/^[a-z0-9-]+\.(html|css|js)$/.test(name)) return undefined;
  const file = Bun.file(new URL(name, folder));
  try {
    return new Uint8Array(await file.arrayBuffer());
  } catch {
    return undefined;
  }
}
