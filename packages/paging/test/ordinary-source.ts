/**
 * A deterministic, ordinary-looking source file: indented TypeScript-ish lines of
 * about 37 characters on average, some blank, some with quotes and backslashes.
 */
const SHAPES = [
  'import { $a } from "./$b.ts";',
  'export function $a($b: string): number {',
  '  const $a = $b.indexOf("\\n", start);',
  '  if ($a > $b) return $a - $b;',
  '  // $a the $b before it is read',
  '  for (let i = 0; i < $a.length; i++) {',
  '    $a.push(`${$b}\\t${i}`);',
  '  }',
  '  return { $a, $b };',
  '}',
  '',
  '/** What a $a says about its $b. */',
  "  throw new Error('$a must be a $b; give it as a whole number of characters');",
  '    const $a = await readPage(workspace, { path: $b.path, offset: $b.offset + 1 });',
  '      expect(JSON.stringify($a).length).toBeLessThanOrEqual($b.resultMaxChars);',
  '  return $a.lines.slice(from - 1, to).map((line, i) => `${from + i}\t${line}`);',
];
const WORDS = ['page', 'line', 'text', 'offset', 'limit', 'note', 'budget', 'rest', 'marker', 'content', 'path', 'total'];

/** The lines of an ordinary source file, `count` of them; `long` replaces some lines by long ones. */
export function ordinarySourceLines(count: number, long: Readonly<Record<number, number>> = {}): string[] {
  let state = 7;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state % n;
  };
  const lines: string[] = [];
  for (let i = 1; i <= count; i++) {
    const length = long[i];
    if (length !== undefined) {
      lines.push(`const data = "${'abcdefghij'.repeat(Math.ceil(length / 10))}`.slice(0, length));
      continue;
    }
    const shape = SHAPES[next(SHAPES.length)];
    lines.push(shape.replace('$a', WORDS[next(WORDS.length)]).replace('$b', WORDS[next(WORDS.length)]).replaceAll('$a', 'x').replaceAll('$b', 'y'));
  }
  return lines;
}

/** An ordinary source file's text, lines joined by `eol` and ended by one. */
export function ordinarySource(count: number, eol = '\n', long: Readonly<Record<number, number>> = {}): string {
  return ordinarySourceLines(count, long).join(eol) + eol;
}
