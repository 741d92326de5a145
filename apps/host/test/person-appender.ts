/**
 * A person saving several files over and over, for the person's-save test: each save
 * reads the next file in turn, appends the line `person N` (N counts every save of this
 * process, so file i gets the N where N % files === i) and saves it, by rename (a
 * temporary file renamed over it, as most editors do), in place (truncate, then
 * write), or by appending (open with O_APPEND, write the line, close: no read, no
 * truncate), then pauses 1–5 ms, until killed. Prints N after each save.
 *
 *   bun person-appender.ts rename|place|append FILE...
 */
import { appendFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

const [how, ...files] = process.argv.slice(2);
for (let n = 0; ; ) {
  const file = files[n % files.length];
  if (how === 'append') {
    appendFileSync(file, `person ${n}\n`);
    process.stdout.write(`${n}\n`);
    n++;
    Bun.sleepSync(1 + (n % 5));
    continue;
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    Bun.sleepSync(1);
    continue;
  }
  const next = `${text}person ${n}\n`;
  if (how === 'rename') {
    writeFileSync(`${file}.person-tmp`, next);
    renameSync(`${file}.person-tmp`, file);
  } else {
    writeFileSync(file, next);
  }
  process.stdout.write(`${n}\n`);
  n++;
  Bun.sleepSync(1 + (n % 5));
}
