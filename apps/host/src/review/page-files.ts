/**
 * The page's files (`page/`), served as they are — no build step — and imported as text,
 * so a compiled `ws` carries them inside and the built JS finds them beside it. The one
 * rule: only these five names are ever answered.
 */
import app from './page/app.js' with { type: 'text' };
import index from './page/index.html' with { type: 'text' };
import signIn from './page/sign-in.html' with { type: 'text' };
import signInScript from './page/sign-in.js' with { type: 'text' };
import style from './page/style.css' with { type: 'text' };

// bun-types calls an `.html` import an HTML bundle; with `type: 'text'` it is the file's text.
const html = (imported: unknown) => imported as string;

const FILES: Readonly<Record<string, { readonly text: string; readonly type: string }>> = {
  'index.html': { text: html(index), type: 'text/html; charset=utf-8' },
  'sign-in.html': { text: html(signIn), type: 'text/html; charset=utf-8' },
  'app.js': { text: app, type: 'text/javascript; charset=utf-8' },
  'sign-in.js': { text: signInScript, type: 'text/javascript; charset=utf-8' },
  'style.css': { text: style, type: 'text/css; charset=utf-8' },
};

/** A page file and its content type, or undefined. */
export function readPage(name: string): { text: string; type: string } | undefined {
  return Object.hasOwn(FILES, name) ? FILES[name] : undefined;
}
