/**
 * The page's files (`page/`), served as they are: no build step. The one rule: a name
 * not in `TYPES` is never read.
 */
import { readPageFile } from '../disk/page-file.ts';

const FOLDER = new URL('./page/', import.meta.url);

const TYPES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'sign-in.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'sign-in.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
};

/** A page file and its content type, or undefined. */
export async function readPage(name: string): Promise<{ bytes: Uint8Array; type: string } | undefined> {
  const type = TYPES[name];
  if (type === undefined) return undefined;
  const bytes = await readPageFile(FOLDER, name);
  return bytes === undefined ? undefined : { bytes, type };
}
