export { type ToolCall, handleToolCall } from './handle.ts';
export { type ToolResult } from './result.ts';
export { type ToolDefinition, tools } from './tools.ts';
export { type JsonSchema, type ToolInput, type ToolName, inputSchemas, jsonSchemaOf } from './schemas.ts';
export { type Checked, checkInput } from './validate.ts';
export { type EditPlan, type EditProblem, type EditSpec, type PlannedEdit, type Replacements, asLineView, planEdits } from './edit-plan.ts';
export { type FileReceipt, type ReceiptEntry, DEFAULT_RECEIPT_CHARS, changedLines, receipt, receiptEntries } from './receipt.ts';
export { type Located, type Location, locate, prefixed } from './paths.ts';
export type { Change, Entry, ListOutcome, Mount, ReadOutcome, Refusal, Report, SearchFile, Workspace } from './workspace.ts';
