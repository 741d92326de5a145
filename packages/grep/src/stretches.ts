/**
 * A file too large to hold, read as stretches of whole lines: each read of 1 MiB is
 * cut after its last line end, and the partial line after it carried into the next, so
 * every line lies whole in one stretch and is decoded there (a line end is ASCII, so no
 * UTF-8 sequence is ever split). The one rule: the stretches, decoded one after the other,
 * are the file's text exactly as one decode of it gives — lines, line numbers and
 * character indexes counted over the whole file — except for a line longer than the
 * longest one held, which is counted (its number and its characters) but never held.
 */
import { BINARY_SNIFF_BYTES, looksBinary } from '@ws/text';
import { crlfEnds } from './file-kind.ts';

/** A file searched a stretch at a time: its size, and its bytes by range. */
export interface LargeText {
  /** Its size in bytes, as first seen. */
  readonly size: number;
  /**
   * Up to `length` bytes from byte `start` (fewer only at the end); null where the file
   * is not the one first seen (it changed or went). The bytes may be reused by the next
   * call: they are copied before it is made.
   */
  range(start: number, length: number): Promise<Uint8Array | null>;
}

/** How large a file's stretches are. */
export interface StretchSizes {
  /** Bytes read at a time. */
  readonly bytes: number;
  /** The most bytes of one line read without finding its end before it is passed over. */
  readonly longestLine: number;
}

/**
 * 1 MiB a read, as `read` streams a large file; a line held up to 16 MiB (`@ws/grep`'s README,
 * "Large files"). Larger reads cost memory, not time: each stretch's garbage outlives the
 * next ones, so 8 MiB reads peaked at 380 MB RSS over a 286 MB log, 1 MiB reads at 170 MB.
 */
export const STRETCH_SIZES: StretchSizes = { bytes: 1 << 20, longestLine: 16 << 20 };

/** Which line ends a stretch holds: CRLF ones, bare LF ones. */
export interface LineEnds {
  readonly crlf: boolean;
  readonly lf: boolean;
}

/** What reading a large file gives, in file order. */
export type StretchEvent =
  /** Its first 8 KB hold a NUL byte (`@ws/text`'s `looksBinary`): nothing else follows. */
  | { readonly kind: 'binary' }
  /**
   * Whole lines: `firstLine` (1-based) and `firstChar` (UTF-16 index of the file's text,
   * BOM counted) of the first. `bytes` are valid until the next event is asked for (one
   * buffer serves every stretch); `text` is the stretch's own.
   */
  | {
      readonly kind: 'lines';
      readonly bytes: Uint8Array;
      readonly text: string;
      readonly firstLine: number;
      readonly firstChar: number;
      /** Lines it holds (a last line without a line end counts). */
      readonly lines: number;
      /** It starts the file, so a leading U+FEFF is the file's BOM. */
      readonly first: boolean;
      readonly ends: LineEnds;
    }
  /** Line `line` ran past `longestLine` bytes: counted, not held. */
  | { readonly kind: 'long'; readonly line: number; readonly ends: LineEnds }
  /** The file changed (or shrank) before line `line` was read: nothing else follows. */
  | { readonly kind: 'changed'; readonly line: number };

const LF = 10;
const CR = 13;

/** The line ends of a decoded stretch that starts a line (so an LF at its start follows an LF, not a CR). */
function endsOf(text: string): LineEnds {
  const crlf = text.includes('\r\n');
  return { crlf, lf: crlf ? crlfEnds(text) === 'mixed' : text.includes('\n') };
}

function countLines(text: string): number {
  let n = 0;
  for (let lf = text.indexOf('\n'); lf !== -1; lf = text.indexOf('\n', lf + 1)) n++;
  return text.length > 0 && text.charCodeAt(text.length - 1) !== LF ? n + 1 : n;
}

/** Reads `file` as stretches of whole lines (see the module comment). */
export async function* stretchesOf(file: LargeText, sizes: StretchSizes = STRETCH_SIZES): AsyncGenerator<StretchEvent> {
  const { size } = file;
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const head = await file.range(0, Math.min(size, BINARY_SNIFF_BYTES));
  if (head === null || (head.length === 0 && size > 0)) {
    yield { kind: 'changed', line: 1 };
    return;
  }
  if (looksBinary(head)) {
    yield { kind: 'binary' };
    return;
  }
  let line = 1;
  let chars = 0;
  let first = true;
  // One buffer for the stretch being read: the partial line carried from the reads before, then the new read.
  let work = new Uint8Array(Math.min(size, sizes.bytes) * 2);
  let held = 0;
  // A line too long to hold, being counted until its end.
  let long: { decoder: TextDecoder; chars: number; lastByte: number } | undefined;

  const lines = (bytes: Uint8Array): StretchEvent => {
    const text = decoder.decode(bytes);
    const event: StretchEvent = { kind: 'lines', bytes, text, firstLine: line, firstChar: chars, lines: countLines(text), first, ends: endsOf(text) };
    line += event.lines;
    chars += text.length;
    first = false;
    return event;
  };
  const longDone = (tail: Uint8Array, ended: boolean): StretchEvent => {
    const l = long as NonNullable<typeof long>;
    const count = l.chars + l.decoder.decode(tail).length;
    const crlf = ended && (tail.length >= 2 ? tail[tail.length - 2] : l.lastByte) === CR;
    const event: StretchEvent = { kind: 'long', line, ends: { crlf, lf: ended && !crlf } };
    line++;
    chars += count;
    first = false;
    long = undefined;
    return event;
  };

  for (let pos = 0; pos < size; ) {
    const got = await file.range(pos, Math.min(sizes.bytes, size - pos));
    if (got === null || got.length === 0) {
      yield { kind: 'changed', line };
      return;
    }
    pos += got.length;
    let at = 0;
    if (long !== undefined) {
      const lf = got.indexOf(LF);
      if (lf === -1) {
        long.chars += long.decoder.decode(got, { stream: true }).length;
        long.lastByte = got[got.length - 1];
        continue;
      }
      yield longDone(got.subarray(0, lf + 1), true);
      at = lf + 1;
    }
    const rest = got.subarray(at);
    if (held + rest.length > work.length) {
      const grown = new Uint8Array(Math.max(work.length * 2, held + rest.length));
      grown.set(work.subarray(0, held));
      work = grown;
    }
    work.set(rest, held);
    const end = held + rest.length;
    const lastLf = rest.lastIndexOf(LF);
    if (lastLf === -1) {
      // No line end in the rest: carried, unless the line has grown too long to hold.
      held = end;
      if (held > sizes.longestLine) {
        const counter = new TextDecoder('utf-8', { ignoreBOM: true });
        long = { decoder: counter, chars: counter.decode(work.subarray(0, held), { stream: true }).length, lastByte: work[held - 1] };
        held = 0;
        // A buffer grown for the long line goes with it.
        if (work.length > sizes.bytes * 2) work = new Uint8Array(sizes.bytes * 2);
      }
      continue;
    }
    const cut = held + lastLf + 1;
    // The stretch's bytes are used before the next event is asked for; then the carry moves to the front.
    yield lines(work.subarray(0, cut));
    work.copyWithin(0, cut, end);
    held = end - cut;
  }
  if (long !== undefined) yield longDone(new Uint8Array(0), false);
  else if (held > 0) yield lines(work.subarray(0, held));
}
