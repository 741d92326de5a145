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

/**
 * Each edit's changed lines in the new text, as merged `[from, to]` ranges (1-based,
 * inclusive). One walk in text order: a replacement's new line is its old line plus the
 * line ends every earlier replacement added or removed.
 */
export function changedLines(edits: readonly PlannedEdit[], replacements: Replacements): number[][] {
  const ranges: number[][] = edits.map(() => []);
  let delta = 0;
  for (let j = 0; j < replacements.count; j++) {
    const e = replacements.edit[j];
    const planned = edits[e];
    const from = replacements.line[j] + delta;
    const to = from + Math.max(0, planned.newNewlines - (planned.endsWithNewline ? 1 : 0));
    const own = ranges[e];
    const last = own.length - 1;
    if (own.length > 0 && from <= own[last] + 1) {
      if (to > own[last]) own[last] = to;
    } else {
      own.push(from, to);
    }
    delta += planned.newNewlines - planned.oldNewlines;
  }
  return ranges;
}

/** `3-5, 9` for `[3, 5, 9, 9]`, naming at most MAX_RANGES ranges and counting the rest. */
export function rangeText(flat: readonly number[]): string {
  const shown = Math.min(flat.length >> 1, MAX_RANGES);
  let text = '';
  for (let i = 0; i < shown; i++) {
    const from = flat[2 * i];
    const to = flat[2 * i + 1];
    if (i > 0) text += ', ';
    text += from === to ? from : `${from}-${to}`;
  }
  const more = (flat.length >> 1) - shown;
  return more > 0 ? `${text} and ${more} more` : text;
}

/** Where each edit's entry comes from, in the call's edit order; ranges computed per file in one walk. */
function entrySources(files: readonly FileReceipt[]): { edit: number; path: string; replaced: number; ranges: number[] }[] {
  const sources: { edit: number; path: string; replaced: number; ranges: number[] }[] = [];
  for (const file of files) {
    const ranges = changedLines(file.edits, file.replacements);
    file.numbers.forEach((edit, i) => sources.push({ edit, path: file.path, replaced: file.edits[i].replaced, ranges: ranges[i] }));
  }
  return sources.sort((a, b) => a.edit - b.edit);
}

function entryOf(source: { edit: number; path: string; replaced: number; ranges: number[] }): ReceiptEntry {
  return { edit: source.edit, path: source.path, replaced: source.replaced, lines: rangeText(source.ranges) };
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
