import { describe, expect, test } from 'bun:test';
import { jsonLength } from '@ws/text';
import { handleToolCall, type Mount, type Workspace } from '../src/index.ts';
import { holdReport } from '../src/hold.ts';
import { draftsStatusNote } from '../src/errors.ts';

/** A mount whose sync, materialize and status reports list many paths. */
function chattyWorkspace(paths: number): Workspace {
  const list = Array.from({ length: paths }, (_, i) => ({ path: `dir/file-${i}.txt`, took: 'change' }));
  const report = { tookIn: list, conflicts: list.slice(0, 40).map((l) => ({ ...l, kind: 'both-changed' })), counts: { synced: paths } };
  const mount = {
    name: 'work',
    backend: 'store',
    readOnly: false,
    maxFileSize: 1000,
    sync: async () => ({ ok: true as const, report }),
    materialize: async () => ({ ok: true as const, report }),
    status: async () => report,
  } as unknown as Mount;
  return { mounts: [mount], hasDirectMount: false };
}

describe('reports held to the budget', () => {
  for (const name of ['sync', 'materialize', 'status']) {
    test(`a ${name} report over many paths fits resultMaxChars and says which lists were cut`, async () => {
      const ws = chattyWorkspace(5000);
      const whole = await handleToolCall(ws, { name, input: {} });
      expect(whole.success && jsonLength(whole.data)).toBeGreaterThan(100_000);
      for (const max of [24_000, 5_000, 1_000]) {
        const held = await handleToolCall(ws, { name, input: {}, resultMaxChars: max });
        if (!held.success) throw new Error(held.error);
        expect(jsonLength(held.data)).toBeLessThanOrEqual(max);
        const data = held.data as { note: string; mounts: { tookIn: unknown[]; counts: unknown }[] };
        expect(data.note).toContain(`mounts[0].tookIn shows ${data.mounts[0].tookIn.length} of 5000`);
        expect(data.note).toContain(name === 'status' ? 'list the mount with ls and recursive: true' : 'Narrow with path');
        expect(data.mounts[0].counts).toEqual({ synced: 5000 });
      }
    });
  }

  test('a report that fits is passed on whole, without a note', () => {
    const data = { mounts: [{ mount: 'work', tookIn: [{ path: 'a' }] }] };
    expect(holdReport(data, 1000, 'Narrow.')).toEqual(data);
  });

  test('the first items of a cut list are kept, in order, and the original is untouched', () => {
    const items = Array.from({ length: 100 }, (_, i) => `item-${i}`);
    const data = { mounts: [{ mount: 'work', tookIn: items }] };
    const held = holdReport(data, 400, 'Narrow.') as { mounts: { tookIn: string[] }[] };
    expect(held.mounts[0].tookIn).toEqual(items.slice(0, held.mounts[0].tookIn.length));
    expect(held.mounts[0].tookIn.length).toBeGreaterThan(0);
    expect(data.mounts[0].tookIn).toHaveLength(100);
  });
});

describe('status names the tools for drafts', () => {
  test('where a mount lists drafts, status says diff and discard, and keeps saying it when its lists are cut', async () => {
    const ws = chattyWorkspace(3000);
    const mount = ws.mounts[0] as unknown as { status: () => Promise<unknown> };
    const drafts = Array.from({ length: 3000 }, (_, i) => `dir/file-${i}.txt`);
    mount.status = async () => ({ drafts, conflicts: [], pendingDeletions: [] });
    const whole = await handleToolCall(ws, { name: 'status', input: {} });
    expect(whole.success && (whole.data as { note: string }).note).toBe(draftsStatusNote);
    const cut = await handleToolCall(ws, { name: 'status', input: {}, resultMaxChars: 2_000 });
    if (!cut.success) throw new Error(cut.error);
    const note = (cut.data as { note: string }).note;
    expect(note.startsWith(draftsStatusNote)).toBe(true);
    expect(note).toContain('Lists were cut');
    expect(jsonLength(cut.data)).toBeLessThanOrEqual(2_000);
    mount.status = async () => ({ drafts: [], conflicts: [], pendingDeletions: [] });
    const clean = await handleToolCall(ws, { name: 'status', input: {} });
    expect(clean.success && 'note' in clean.data).toBe(false);
  });
});
