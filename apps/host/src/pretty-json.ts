/**
 * A value as `JSON.stringify(value, null, 2)` prints it, in chunks: the CLI writes a
 * large answer (a first sync lists every file it took in) without ever holding the whole
 * text — one such string is twice its length in bytes where a single character is beyond
 * Latin-1, and writing it makes a UTF-8 copy. The one rule: the chunks joined are
 * exactly `JSON.stringify(value, null, 2)`, byte for byte.
 */

const INDENT = '  ';

/** The characters a chunk gathers before it is handed on (one value's text may run past it). */
export const CHUNK_CHARS = 1 << 16;

/**
 * Plain arrays and objects are walked here, but {@link small} ones; anything else (a
 * primitive, a value with `toJSON`, a boxed primitive, a class instance) is left to
 * `JSON.stringify` whole, so its text is JSON's own.
 */
function walked(value: unknown): value is Record<string, unknown> | unknown[] {
  if (value === null || typeof value !== 'object') return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  if (!Array.isArray(value)) {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return false;
  }
  return !small(value as Record<string, unknown> | unknown[]);
}

/** How many members a container of plain values may have and still go to `JSON.stringify` whole. */
const SMALL = 16;

/**
 * A plain array or object of at most {@link SMALL} members, none of them a container:
 * `JSON.stringify` makes its text in one call, where walking it would make a string per
 * member (a first sync's answer is tens of thousands of `{ path, took }`).
 */
function small(value: Record<string, unknown> | unknown[]): boolean {
  const members = Array.isArray(value) ? value : Object.values(value);
  if (members.length > SMALL) return false;
  for (const m of members) if (m !== null && typeof m === 'object') return false;
  return true;
}

/** The text `JSON.stringify` gives a value that is not walked, its lines indented to `pad`; undefined where JSON leaves it out. */
function leafText(v: unknown, pad: string): string | undefined {
  const text = JSON.stringify(v, null, 2);
  // A JSON string holds no raw line end: every one is between members.
  return text === undefined || pad === '' || !text.includes('\n') ? text : text.replaceAll('\n', `\n${pad}`);
}

/** The chunks of `JSON.stringify(value, null, 2)`, each about `chunkChars` long; none where that is undefined. */
export function* prettyJsonChunks(value: unknown, chunkChars = CHUNK_CHARS): Generator<string> {
  let parts: string[] = [];
  let length = 0;
  const put = (text: string) => {
    parts.push(text);
    length += text.length;
  };
  const seen = new Set<object>();
  function* member(v: unknown, pad: string): Generator<string> {
    if (walked(v)) yield* container(v, pad);
    if (length >= chunkChars) {
      yield parts.join('');
      parts = [];
      length = 0;
    }
  }
  function* container(v: Record<string, unknown> | unknown[], pad: string): Generator<string> {
    // JSON.stringify refuses a cycle; so does this.
    if (seen.has(v)) throw new TypeError('JSON.stringify cannot serialize cyclic structures.');
    seen.add(v);
    const inner = pad + INDENT;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        put(i === 0 ? `[\n${inner}` : `,\n${inner}`);
        const item = v[i];
        if (!walked(item)) put(leafText(item, inner) ?? 'null');
        yield* member(item, inner);
      }
      put(v.length === 0 ? '[]' : `\n${pad}]`);
    } else {
      let first = true;
      for (const key of Object.keys(v)) {
        const item = v[key];
        const text = walked(item) ? '' : leafText(item, inner);
        if (text === undefined) continue; // left out, as JSON leaves it
        put(`${first ? '{' : ','}\n${inner}${JSON.stringify(key)}: ${text}`);
        first = false;
        yield* member(item, inner);
      }
      put(first ? '{}' : `\n${pad}}`);
    }
    seen.delete(v);
  }
  if (walked(value)) yield* container(value, '');
  else {
    const text = leafText(value, '');
    if (text === undefined) return;
    put(text);
  }
  if (length > 0) yield parts.join('');
}

/** How many chunks are written between two calls of `collect` in {@link printJson}. */
export const COLLECT_EVERY = 16;

/**
 * Writes `JSON.stringify(value, null, 2)` and a line end through `write`, a chunk at a
 * time, each written before the next is made, calling `collect` every
 * {@link COLLECT_EVERY} chunks: the strings a chunk is made of die at once, and a
 * collector left to itself let them pile up to several times the text (45 MiB printing
 * 6.7 MB).
 */
export async function printJson(value: unknown, write: (text: string) => Promise<void>, collect: () => void): Promise<void> {
  let written = 0;
  for (const chunk of prettyJsonChunks(value)) {
    await write(chunk);
    if (++written % COLLECT_EVERY === 0) collect();
  }
  await write('\n');
}
