/**
 * The window that remains (the host README, "A person's save"): a writer that opened the
 * file before ws exchanged its new one in, and writes after ws compared the file that came
 * out, writes into a file no name leads to any more. Measured with a person appending a
 * line by `O_APPEND` (open, write, close: no read, no truncate) every 1–5 ms while ws
 * reads, appends its own line and writes with what it read as the expectation: saves lost
 * with the guard (exchange, compare byte for byte) against the same with a check and a
 * plain rename, in one run. And a writer holding one descriptor open throughout: every
 * line it writes after ws's first replace is lost, guard or not.
 */
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { diskPort } from '../src/disk/disk-port.ts';
import { walkRules } from '../src/disk/rules.ts';

const WRITES = 1500;
const enc = new TextEncoder();
const dec = new TextDecoder();

async function appenderRun(replaceGuard: boolean): Promise<{ saves: number; lost: number; refused: number }> {
  const root = mkdtempSync(join(tmpdir(), 'ws-window-bench-'));
  try {
    writeFileSync(join(root, 'log.txt'), 'start\n');
    const disk = diskPort({ root, rules: walkRules([], undefined), followSymlinks: false, walkCap: 1000, replaceGuard });
    const person = Bun.spawn(['bun', join(import.meta.dir, '../test/person-appender.ts'), 'append', join(root, 'log.txt')], { stdout: 'pipe' });
    let last = -1;
    const counting = (async () => {
      for await (const chunk of person.stdout) last = Number(dec.decode(chunk).trim().split('\n').pop());
    })();
    while (last < 0) await Bun.sleep(5);
    let refused = 0;
    for (let i = 0; i < WRITES; i++) {
      const read = await disk.read('log.txt', 1 << 24);
      if (read.kind !== 'file' || read.bytes === null) continue;
      const expect = { kind: 'file', fingerprint: read.meta.fingerprint } as const;
      const r = await disk.write('log.txt', enc.encode(`${dec.decode(read.bytes)}ws ${i}\n`), { mode: null, expect, ...(replaceGuard ? { expectBytes: read.bytes } : {}) });
      if (r.kind === 'refused') refused++;
    }
    person.kill();
    await person.exited;
    await counting;
    const have = new Set(readFileSync(join(root, 'log.txt'), 'utf8').split('\n'));
    let lost = 0;
    for (let n = 0; n < last; n++) if (!have.has(`person ${n}`)) lost++;
    return { saves: last, lost, refused };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** A writer holding one descriptor: lines written before and after one guarded ws write. */
async function heldDescriptor(): Promise<{ before: boolean; after: boolean }> {
  const root = mkdtempSync(join(tmpdir(), 'ws-window-bench-'));
  try {
    writeFileSync(join(root, 'log.txt'), 'start\n');
    const disk = diskPort({ root, rules: walkRules([], undefined), followSymlinks: false, walkCap: 1000 });
    const fd = openSync(join(root, 'log.txt'), 'a');
    writeSync(fd, 'held 1\n');
    const read = await disk.read('log.txt', 1 << 20);
    if (read.kind !== 'file' || read.bytes === null) throw new Error('not read');
    await disk.write('log.txt', enc.encode(`${dec.decode(read.bytes)}ws\n`), { mode: null, expect: { kind: 'file', fingerprint: read.meta.fingerprint }, expectBytes: read.bytes });
    writeSync(fd, 'held 2\n');
    closeSync(fd);
    const text = readFileSync(join(root, 'log.txt'), 'utf8');
    return { before: text.includes('held 1\n'), after: text.includes('held 2\n') };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const plain = await appenderRun(false);
const guarded = await appenderRun(true);
const held = await heldDescriptor();
console.log(`the remaining window (${WRITES} ws writes against a person appending by O_APPEND every 1–5 ms)`);
console.log(`  guarded: ${guarded.lost} of ${guarded.saves} appends lost (${guarded.refused} writes refused)`);
console.log(`  check then rename: ${plain.lost} of ${plain.saves} appends lost (${plain.refused} writes refused)`);
console.log(`  a descriptor held open across one guarded write: the line before it ${held.before ? 'kept' : 'lost'}, the line after it ${held.after ? 'kept' : 'lost'}`);
if (plain.saves <= 0 || guarded.saves <= 0) {
  console.error('the reference run or the guarded run saw no person saves');
  process.exit(1);
}
