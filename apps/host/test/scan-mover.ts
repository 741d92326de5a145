/**
 * A writer for `store-scan-snapshot.test.ts`: on the store's file, moves one path's tree
 * and evidence rows from the front of the path order to the back (or back again) in one
 * transaction, again and again, until killed. Every commit leaves the same number of
 * paths; a scan that read its pages at different commits would see one more or one less.
 */
import { Database } from 'bun:sqlite';

const [file, countText] = process.argv.slice(2);
const count = Number(countText);
const db = new Database(file);
db.run('PRAGMA busy_timeout = 10000');
const move = db.transaction((from: string, to: string) => {
  db.query('UPDATE tree SET path = ?2 WHERE path = ?1').run(from, to);
  db.query('UPDATE evidence SET path = ?2 WHERE path = ?1').run(from, to);
});
process.stdout.write('ready\n');
for (let round = 0; ; round++) {
  const k = round % count;
  const front = `a/${String(k).padStart(5, '0')}`;
  const back = `z/${String(k).padStart(5, '0')}`;
  if (round % (2 * count) < count) move(front, back);
  else move(back, front);
}
