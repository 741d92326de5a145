/**
 * `JSON.stringify(value).length` without building the string where that is faster.
 * The one rule: the answer equals `JSON.stringify(value).length` exactly, for every
 * value; where measuring is not faster than building (a string with a lone surrogate,
 * a `toJSON`), it builds.
 */

/** Extra characters JSON.stringify spends on each ASCII code unit beyond the one it is. */
const ASCII_EXTRA = new Uint8Array(128);
for (let c = 0; c < 0x20; c++) ASCII_EXTRA[c] = 5; // \u00XX
for (const c of [0x08, 0x09, 0x0a, 0x0c, 0x0d, 0x22, 0x5c]) ASCII_EXTRA[c] = 1; // \b \t \n \f \r \" \\

/** Any code unit JSON.stringify might escape: controls, quote, backslash, surrogates. */
const MAY_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/** Below this length a charCodeAt scan is cheapest; above, encoding and counting bytes is. */
const SCAN_LIMIT = 256;

function scanStringLength(s: string): number {
  const len = s.length;
  let n = len + 2;
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i);
    if (c < 128) {
      n += ASCII_EXTRA[c];
    } else if (c >= 0xd800 && c <= 0xdfff) {
      if (c <= 0xdbff && i + 1 < len) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          i++;
          continue;
        }
      }
      n += 5; // a lone surrogate is written as \udXXX
    }
  }
  return n;
}

/** Extra characters per UTF-8 byte: a control, quote or backslash is one ASCII byte. */
const BYTE_EXTRA = new Uint8Array(256);
BYTE_EXTRA.set(ASCII_EXTRA);

const encoder = new TextEncoder();
/** Kept between calls up to this size; a longer string gets a buffer of its own. */
const SCRATCH_KEEP = 1 << 24;
let scratch = new Uint8Array(1 << 16);

/**
 * A long string with something to escape: encode it to UTF-8 (native, fast) and count
 * the escapes over bytes, which a typed-array loop does faster than charCodeAt. Every
 * character JSON.stringify escapes is one ASCII byte in UTF-8 — except a lone surrogate,
 * which UTF-8 cannot hold, so a string with one is built instead.
 */
function escapedLongStringLength(s: string): number {
  if (!s.isWellFormed()) return JSON.stringify(s).length;
  const need = s.length * 3;
  let buffer = scratch;
  if (buffer.length < need) {
    buffer = new Uint8Array(need);
    if (need <= SCRATCH_KEEP) scratch = buffer;
  }
  const { written } = encoder.encodeInto(s, buffer);
  let extra = 0;
  for (let i = 0; i < written; i++) extra += BYTE_EXTRA[buffer[i]];
  return s.length + 2 + extra;
}

function stringLength(s: string): number {
  if (s.length < SCAN_LIMIT) return scanStringLength(s);
  return MAY_ESCAPE.test(s) ? escapedLongStringLength(s) : s.length + 2;
}

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}

/** A value JSON.stringify leaves out of an object (and writes as null in an array). */
function isOmitted(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}

/** Deeper than this, defer to JSON.stringify so a cycle throws the same TypeError. */
const MAX_DEPTH = 200;

function valueLength(v: unknown, depth: number): number {
  switch (typeof v) {
    case 'string':
      return stringLength(v);
    case 'number':
      return Number.isFinite(v) ? String(v).length : 4;
    case 'boolean':
      return v ? 4 : 5;
    case 'object': {
      if (v === null) return 4;
      if (depth > MAX_DEPTH) return JSON.stringify(v).length;
      if (Array.isArray(v) && Object.getPrototypeOf(v) === Array.prototype) {
        let n = 2 + Math.max(0, v.length - 1);
        for (let i = 0; i < v.length; i++) {
          const item = v[i];
          n += isOmitted(item) ? 4 : valueLength(item, depth + 1);
        }
        return n;
      }
      if (isPlainObject(v)) {
        let n = 2;
        let members = 0;
        const record = v as Record<string, unknown>;
        for (const key of Object.keys(record)) {
          const item = record[key];
          if (isOmitted(item)) continue;
          n += stringLength(key) + 1 + valueLength(item, depth + 1);
          members++;
        }
        return n + Math.max(0, members - 1);
      }
      return JSON.stringify(v).length;
    }
    default:
      return JSON.stringify(v).length;
  }
}

/**
 * `JSON.stringify(value).length`, exactly. Strings, numbers, booleans, null, plain
 * arrays and plain objects are measured without building the JSON; anything else
 * (a `toJSON`, a class instance, a BigInt, a cycle) is measured by building it, and
 * throws where JSON.stringify throws. A value JSON.stringify turns into `undefined`
 * (undefined, a function, a symbol) has no JSON and measures 0.
 */
export function jsonLength(value: unknown): number {
  if (isOmitted(value)) return 0;
  return valueLength(value, 0);
}
