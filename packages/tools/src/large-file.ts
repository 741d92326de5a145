/**
 * Pages of a file over the mount's `maxFileSize` (the README's "Large files"), found by
 * streaming it from disk in stretches of {@link CHUNK_BYTES}: the whole file is decoded
 * once per page, to count its lines and characters and to find the span the page shows,
 * and only that span is kept. The one rule: memory is bounded by a stretch and the page,
 * never by the file — nothing here holds more than one stretch and the span at a time.
 */
import { type FileText, textNotes } from '@ws/text';
import { type CharacterSpan, LONG_LINE_CHARS, type LineSpan } from '@ws/paging';

/** Bytes read from disk per stretch. */
export const CHUNK_BYTES = 1 << 20;

/** The most characters of lines a page without a budget holds (its limit may stop it sooner). */
export const UNBUDGETED_SPAN_CHARS = 1 << 20;

/** Reads up to `length` bytes from `start`; null where the file changed since the read began. */
export type RangeReader = (start: number, length: number) => Promise<Uint8Array | null>;

const CR = 13;

/** How much of each line a span holds: enough for the 2,000-character cut and the pair check at it. */
const HELD_CHARS = LONG_LINE_CHARS + 2;

const REPLACEMENT = '\uFFFD';

/** Where an unfinished UTF-8 sequence at the end of `bytes` begins (`bytes.length` where none is unfinished). */
function unfinishedAt(bytes: Uint8Array): number {
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 3); i--) {
    const b = bytes[i];
    if ((b & 0xc0) === 0x80) continue;
    const needs = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return i + needs > bytes.length ? i : bytes.length;
  }
  return bytes.length;
}

/**
 * Whether the stretches are valid UTF-8, decoded strictly only where the lenient decode
 * gave a U+FFFD (a replaced sequence, or the character itself): a clean file is decoded
 * once. A sequence split between stretches is checked whole, with the next stretch.
 */
function utf8Check() {
  let carry = new Uint8Array(0);
  return {
    // While the lenient decode gives no U+FFFD, all it took is UTF-8 but an unfinished tail;
    // a tail that does not go on as UTF-8 gives a U+FFFD in the stretch that breaks it.
    valid(bytes: Uint8Array, replaced: boolean): boolean {
      let whole = bytes;
      if (carry.length > 0) {
        whole = new Uint8Array(carry.length + bytes.length);
        whole.set(carry);
        whole.set(bytes, carry.length);
      }
      let ok = true;
      if (replaced) {
        // A fresh decoder from the carried sequence's start sees what the running one saw;
        // streaming, it holds an unfinished tail back instead of refusing it.
        try {
          new TextDecoder('utf-8', { ignoreBOM: true, fatal: true }).decode(whole, { stream: true });
        } catch {
          ok = false;
        }
      }
      carry = whole.slice(unfinishedAt(whole));
      return ok;
    },
    /** At the end no sequence may be left unfinished. */
    end: () => carry.length === 0,
  };
}

/** What the whole file's text says about itself, counted as it streams by. */
interface Counts {
  bom: boolean;
  validUtf8: boolean;
  crlf: number;
  lf: number;
  ownCr: number;
  /** UTF-16 units of the whole text. */
  chars: number;
  /** Lines of the whole text, as `fileText` splits them. */
  lines: number;
}

/** What a stream tells its reader, in text order. */
interface Visitor {
  /** Each decoded piece, with its index in the whole text. */
  piece?(piece: string, at: number): void;
  /** Units `from` to `to` of `piece` belong to the current line (its line end excluded). */
  segment?(piece: string, from: number, to: number): void;
  /** The current line ends: it starts at `start` and its text (as read shows it) ends at `stop`. */
  lineEnd?(start: number, stop: number): void;
}

/**
 * Streams the file's text to `visit` and counts what the notes need, splitting lines
 * exactly as `fileText` does (a CRLF end's CR is not the line's unless the line's own
 * text ends in a CR; a leading BOM is not part of line 1). Null where the file changed.
 */
async function stream(size: number, range: RangeReader, visit: Visitor): Promise<Counts | null> {
  const lenient = new TextDecoder('utf-8', { ignoreBOM: true });
  const validity = utf8Check();
  const counts: Counts = { bom: false, validUtf8: true, crlf: 0, lf: 0, ownCr: 0, chars: 0, lines: 0 };
  // The last two units before the current piece, and where the current line starts.
  let back1 = -1;
  let back2 = -1;
  let lineStart = 0;
  const take = (piece: string) => {
    if (piece === '') return;
    const at = counts.chars;
    visit.piece?.(piece, at);
    let from = 0;
    if (at === 0 && piece.charCodeAt(0) === 0xfeff) {
      counts.bom = true;
      lineStart = 1;
      from = 1;
    }
    while (from < piece.length) {
      const nl = piece.indexOf('\n', from);
      visit.segment?.(piece, from, nl === -1 ? piece.length : nl);
      if (nl === -1) break;
      const g = at + nl;
      const c1 = nl >= 1 ? piece.charCodeAt(nl - 1) : back1;
      const c2 = nl >= 2 ? piece.charCodeAt(nl - 2) : nl === 1 ? back1 : back2;
      let stop = g;
      if (g > lineStart && c1 === CR) {
        counts.crlf++;
        if (g - 1 > lineStart && c2 === CR) counts.ownCr++;
        else stop = g - 1;
      } else {
        counts.lf++;
      }
      counts.lines++;
      visit.lineEnd?.(lineStart, stop);
      lineStart = g + 1;
      from = nl + 1;
    }
    back2 = piece.length >= 2 ? piece.charCodeAt(piece.length - 2) : back1;
    back1 = piece.charCodeAt(piece.length - 1);
    counts.chars += piece.length;
  };
  for (let start = 0; start < size; ) {
    const bytes = await range(start, Math.min(CHUNK_BYTES, size - start));
    // Fewer bytes than the size promised: the file shrank, so it changed.
    if (bytes === null || bytes.length === 0) return null;
    start += bytes.length;
    const piece = lenient.decode(bytes, { stream: true });
    if (counts.validUtf8 && !validity.valid(bytes, piece.includes(REPLACEMENT))) counts.validUtf8 = false;
    take(piece);
  }
  const last = lenient.decode();
  if (counts.validUtf8 && !validity.end()) counts.validUtf8 = false;
  take(last);
  // A last line without a line end is a line too; a final line end makes no empty one.
  if (counts.chars > lineStart) {
    counts.lines++;
    visit.lineEnd?.(lineStart, counts.chars);
  }
  return counts;
}

/** The counts as a `FileText` the text notes read (no text: the notes need only the counts). */
function notesOf(counts: Counts, view: 'lines' | 'characters'): string[] {
  const lineEndings = counts.crlf + counts.lf === 0 ? 'none' : counts.crlf === 0 ? 'LF' : counts.lf === 0 ? 'CRLF' : 'mixed';
  const ft: FileText = {
    text: '',
    lines: [],
    starts: [],
    bom: counts.bom,
    validUtf8: counts.validUtf8,
    invalidAt: [],
    crlf: counts.crlf,
    lf: counts.lf,
    ownCr: counts.ownCr,
    lineEndings,
  };
  return textNotes(ft, view);
}

/** What a line page needs held: from which line, how many at most, and how much room. */
export interface LineSpanRequest {
  readonly offset: number;
  readonly limit: number;
  /** The page's budget; undefined: {@link UNBUDGETED_SPAN_CHARS} of lines. */
  readonly budget: number | undefined;
  /** The characters of the page's path and the caller's notes (a floor page weighs them). */
  readonly overhead?: number;
}

/**
 * Room held past the budget: where not even the first line fits, the page that goes out
 * is the shortest there is (README "Line pages", the floor), and it weighs pages as long
 * as its first line cut at 2,000 plus every note, so the span holds that much more.
 */
const FLOOR_ROOM = 2 * LONG_LINE_CHARS + 4096;

/**
 * The span of lines a page from `offset` can show, with the file's line count and notes:
 * lines are held until `limit` is reached or they alone pass the budget and the floor's
 * room (so the page can tell it stops for the budget), each to its first
 * {@link HELD_CHARS} characters. Null where the file changed.
 */
export async function lineSpan(size: number, range: RangeReader, request: LineSpanRequest): Promise<LineSpan | null> {
  const { offset, limit } = request;
  const room = (request.budget ?? UNBUDGETED_SPAN_CHARS) + FLOOR_ROOM + (request.overhead ?? 0);
  const lines: string[] = [];
  const lengths: number[] = [];
  const starts: number[] = [];
  let line = 1;
  let held = '';
  let cost = 0;
  let holding = true;
  const counts = await stream(size, range, {
    segment(piece, from, to) {
      if (line >= offset && holding && held.length < HELD_CHARS) held += piece.slice(from, Math.min(to, from + HELD_CHARS - held.length));
    },
    lineEnd(start, stop) {
      if (line >= offset && holding) {
        const length = stop - start;
        lines.push(held.length > length ? held.slice(0, length) : held);
        lengths.push(length);
        starts.push(start);
        // What the line costs a page at least: its shown text, its number and tab, a line end.
        cost += Math.min(length, LONG_LINE_CHARS) + String(line).length + 3;
        if (lines.length >= limit || cost > room) holding = false;
      }
      line++;
      held = '';
    },
  });
  if (counts === null) return null;
  return { firstLine: offset, totalLines: counts.lines, lines, lengths, starts, textNotes: notesOf(counts, 'lines') };
}

/** The text of `[from, to)` as pieces stream by. */
function collector(from: number, to: number) {
  let text = '';
  return {
    take(piece: string, at: number) {
      const a = Math.max(from, at);
      const b = Math.min(to, at + piece.length);
      if (a < b) text += piece.slice(a - at, b - at);
    },
    get text() {
      return text;
    },
  };
}

/**
 * The span of text a character page from `offsetChars` for `limitChars` within `budget`
 * needs (one unit either side, for the pair checks; no more than the budget can show),
 * with the file's length and notes. Null where the file changed.
 */
export async function characterSpan(size: number, range: RangeReader, offsetChars: number, limitChars: number, budget: number): Promise<CharacterSpan | null> {
  const from = Math.max(0, offsetChars - 1);
  const end = offsetChars + limitChars;
  // At least 64 Ki units past the start, so a floor page that weighs the whole request
  // against one character (README "Character pages") weighs the request's true text.
  const reach = Math.min(end, offsetChars + Math.max(budget, 1 << 16)) + 1;
  const held = collector(from, reach);
  const edge = reach < end ? collector(end - 1, end + 1) : null;
  const counts = await stream(size, range, {
    piece(piece, at) {
      held.take(piece, at);
      edge?.take(piece, at);
    },
  });
  if (counts === null) return null;
  const span = { start: from, text: held.text, totalChars: counts.chars, textNotes: notesOf(counts, 'characters') };
  return edge === null ? span : { ...span, end: { start: end - 1, text: edge.text } };
}
