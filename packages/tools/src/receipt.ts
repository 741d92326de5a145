/**
 * The receipt an edit answers with: per edit, which lines (in the file as it is now)
 * it changed. The one rule: built in one walk over the replacements in text order,
 * bucketing by edit — never a scan of every replacement per edit — and held to the
 * call's budget (24,000 characters where the call states none).
 */
import { jsonLength } from '@ws/text';
import type { PlannedEdit, Replacements } from './edit-plan.ts';
import { receiptCut } from './errors.ts';
import { holdList } from './hold.ts';

/** The budget a receipt holds to when the call states none. */
export const DEFAULT_RECEIPT_CHARS = 24_000;

/** The most line ranges one receipt entry names before it counts the rest. */
export const MAX_RANGES = 50;

/** One edit's line of a receipt. */
export interface ReceiptEntry {
  /** The edit's number in the call (1-based). */
  readonly edit: number;
  readonly path: string;
  /** How many places it replaced. */
  readonly replaced: number;
  /** The lines it changed in the file as it is now: `12`, `3-5, 9`. */
  readonly lines: string;
}

/** One file's plan as the receipt needs it. */
export interface FileReceipt {
  readonly path: string;
  /** The call's number (1-based) of each edit of this file, in the order the plan got them. */
  readonly numbers: readonly number[];
  readonly edits: readonly PlannedEdit[];
  readonly replacements: Replacements;
}

/** Every edit's merged line ranges in one buffer: edit e's are `flat[from[e] .. to[e])`, as from/to pairs. */
interface Ranges {
  readonly flat: Int32Array;
  readonly from: Int32Array;
  readonly to: Int32Array;
}

/**
 * Each edit's changed lines in the new text. One walk in text order: a replacement's
 * new line is its old line plus the line ends every earlier replacement added or
 * removed; each edit's ranges go to its own slice of one buffer (an edit has at most
 * as many ranges as replacements).
 */
function rangesByEdit(edits: readonly PlannedEdit[], replacements: Replacements): Ranges {
  const n = edits.length;
  const span = new Int32Array(n);
  const shift = new Int32Array(n);
  const from = new Int32Array(n);
  const to = new Int32Array(n);
  let size = 0;
  for (let e = 0; e < n; e++) {
    const planned = edits[e];
    span[e] = Math.max(0, planned.newNewlines - (planned.endsWithNewline ? 1 : 0));
    shift[e] = planned.newNewlines - planned.oldNewlines;
    from[e] = size;
    to[e] = size;
    size += 2 * planned.replaced;
  }
  const flat = new Int32Array(size);
  let delta = 0;
  for (let j = 0; j < replacements.count; j++) {
    const e = replacements.edit[j];
    const first = replacements.line[j] + delta;
    const last = first + span[e];
    const end = to[e];
    if (end > from[e] && first <= flat[end - 1] + 1) {
      if (last > flat[end - 1]) flat[end - 1] = last;
    } else {
      flat[end] = first;
      flat[end + 1] = last;
      to[e] = end + 2;
    }
    delta += shift[e];
  }
  return { flat, from, to };
}

/** Each edit's changed lines in the new text, as merged `[from, to, from, to, …]` ranges (1-based, inclusive). */
export function changedLines(edits: readonly PlannedEdit[], replacements: Replacements): number[][] {
  const r = rangesByEdit(edits, replacements);
  return edits.map((_, e) => Array.from(r.flat.subarray(r.from[e], r.to[e])));
}

/** `3-5, 9` for `[3, 5, 9, 9]`, naming at most MAX_RANGES ranges and counting the rest. */
export function rangeText(flat: ArrayLike<number>, start = 0, end = flat.length): string {
  const pairs = (end - start) >> 1;
  const shown = Math.min(pairs, MAX_RANGES);
  let text = '';
  for (let i = 0; i < shown; i++) {
    const from = flat[start + 2 * i];
    const to = flat[start + 2 * i + 1];
    if (i > 0) text += ', ';
    text += from === to ? from : `${from}-${to}`;
  }
  return pairs > shown ? `${text} and ${pairs - shown} more` : text;
}

interface Source {
  readonly edit: number;
  readonly path: string;
  readonly replaced: number;
  readonly ranges: Ranges;
  readonly index: number;
}

/** Where each edit's entry comes from, in the call's edit order; ranges computed per file in one walk. */
function entrySources(files: readonly FileReceipt[]): Source[] {
  const sources: Source[] = [];
  for (const file of files) {
    const ranges = rangesByEdit(file.edits, file.replacements);
    file.numbers.forEach((edit, index) => sources.push({ edit, path: file.path, replaced: file.edits[index].replaced, ranges, index }));
  }
  return sources.sort((a, b) => a.edit - b.edit);
}

function entryOf(s: Source): ReceiptEntry {
  return { edit: s.edit, path: s.path, replaced: s.replaced, lines: rangeText(s.ranges.flat, s.ranges.from[s.index], s.ranges.to[s.index]) };
}

/** Every entry of the receipt, in the call's edit order (no budget). */
export function receiptEntries(files: readonly FileReceipt[]): ReceiptEntry[] {
  return entrySources(files).map(entryOf);
}

/**
 * The receipt data: `{ edits, ...extra, note? }`, held to `resultMaxChars` by showing the
 * first entries that fit and a note that every edit was stored. Entries are written
 * only until the budget is spent: the rest would not be shown.
 */
export function receipt(
  files: readonly FileReceipt[],
  resultMaxChars: number = DEFAULT_RECEIPT_CHARS,
  extra: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  const sources = entrySources(files);
  const entries: ReceiptEntry[] = [];
  let used = jsonLength({ edits: [], ...extra });
  for (const source of sources) {
    const entry = entryOf(source);
    entries.push(entry);
    used += jsonLength(entry) + 1;
    if (used > resultMaxChars) break;
  }
  return holdList(
    entries,
    (shown) =>
      shown.length === sources.length
        ? { edits: shown, ...extra }
        : { edits: shown, ...extra, note: receiptCut(shown.length, sources.length) },
    resultMaxChars,
  );
}
