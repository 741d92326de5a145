export { type ToolCall, handleToolCall } from './handle.ts';
export { type Answer, type Data, type Image, type ToolResult, answer, onTheWire, refuse } from './result.ts';
export { type CallContext, type Progress, type Tool, type ToolHints, defineTool } from './tool.ts';
export { type ToolListing, listingOf, toolNamed, tools } from './tools.ts';
export { type Fields, type InputBuilder, type InputOf, type JsonSchema, type Zod, defineInput, fieldsOf } from './schemas.ts';
export { type Checked, checkInput, inputSchemaOf } from './validate.ts';
export { type EditPlan, type EditProblem, type EditSpec, type PlannedEdit, type Replacements, asLineView, planEdits } from './edit-plan.ts';
export { type FileReceipt, type ReceiptEntry, DEFAULT_RECEIPT_CHARS, changedLines, receipt, receiptEntries } from './receipt.ts';
export { type Located, type Location, locate, prefixed } from './paths.ts';
export type {
  Change,
  CommitIntent,
  Draft,
  Entry,
  ListOptions,
  ListOutcome,
  Mount,
  ReadOutcome,
  Refusal,
  Report,
  SearchFile,
  SearchQuery,
  Version,
  VersionName,
  VersionSource,
  Work,
  Workspace,
} from './workspace.ts';
export { withDraftsNote } from './drafts-note.ts';
export { type PlannedChange, changedSinceRead, commitAll, MAX_PLANS } from './commit-all.ts';
export {
  type Hunk,
  type HunkExtent,
  type HunkSpan,
  type LineChange,
  eachHunkLine,
  hunkHeader,
  hunkSpans,
  hunksOf,
  lineChanges,
} from './hunks.ts';
export { type LineMatches, linesChanged, matchLines } from './line-diff.ts';
export { type Splice, spliceBytes } from './edit-plan.ts';
export { draftsStatusNote, keptDraftsNote, largeFileChange, noAgreedVersion, noSuchVersion, notOnThisMount } from './errors.ts';
