import { describe, expect, test } from 'bun:test';
import { LONG_LINE_CHARS, lineWindow } from '../src/index.ts';

const MARKERS = /^(?:\[… read the start with offsetChars=(\d+) and limitChars=(\d+) …\])?([\s\S]*?)(?:\[… read the rest with offsetChars=(\d+) and limitChars=(\d+)\])?$/;

describe('lineWindow', () => {
  test('a line up to the cut comes back whole', () => {
    expect(lineWindow('a'.repeat(LONG_LINE_CHARS), 7, 5)).toEqual({ text: 'a'.repeat(LONG_LINE_CHARS) });
  });

  test('a long line is a window holding its match, and the markers name exactly what is cut each side', () => {
    const before = 'x'.repeat(5000);
    const line = `${before}NEEDLE${'y'.repeat(5000)}`;
    const text = `head\n${line}\ntail`;
    const start = 5;
    const w = lineWindow(line, start, before.length);
    const [, s1, l1, shown, s2, l2] = MARKERS.exec(w.text)!.map((v) => v);
    expect(shown.length).toBe(LONG_LINE_CHARS);
    expect(shown).toContain('NEEDLE');
    expect(text.slice(Number(s1), Number(s1) + Number(l1)) + shown + text.slice(Number(s2), Number(s2) + Number(l2))).toBe(line);
    expect(w.before).toEqual({ offsetChars: Number(s1), limitChars: Number(l1) });
  });

  test('a match near the start or the end gives one marker; a window never splits a surrogate pair', () => {
    const line = `${'😀'.repeat(3000)}`;
    const head = lineWindow(line, 0, 0);
    expect(head.before).toBeUndefined();
    expect(head.after?.offsetChars).toBe(2000);
    const tail = lineWindow(line, 0, line.length - 2);
    expect(tail.after).toBeUndefined();
    const odd = lineWindow(`a${line}`, 0, 2501);
    const inner = odd.text.replace(/\[…[^\]]*\]/g, '');
    expect(inner.isWellFormed()).toBe(true);
  });
});
