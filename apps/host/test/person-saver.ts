/**
 * A person saving a file over and over, for the replace-window test: reads the file,
 * appends its own numbered line, and saves, by rename (a temporary file renamed over it,
 * as most editors do) or in place (truncate, then write), every 1–3 ms, until killed.
 * Prints the number of its last save on each save.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

const [file, how, id] = process.argv.slice(2);
let n = 0;
for (;;) {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    continue;
  }
  n++;
  const next = `${text}${id} ${n}\n`;
  if (how === 'rename') {
    writeFileSync(`${file}.person-tmp`, next);
    renameSync(`${file}.person-tmp`, file);
  } else {
    writeFileSync(file, next);
  }
  process.stdout.write(`${n}\n`);
  Bun.sleepSync(1 + (n % 3));
}
