/**
 * The Worker a walk's subtrees are walked in (see `walk-parallel.ts`): a message is one
 * {@link WalkTask}; the Worker claims its batches one by one (with the walk's other
 * Workers), answers each with its parts (or `{ id, batch, error }`), and ends with
 * `{ id, done: true }` when none is left to claim. The
 * one rule: the same walk as on the calling thread — the same rules, made from the same
 * spec, and the same stats — except that temporary files are told back, never removed
 * here (only the calling thread knows which ones its process is writing).
 */
import { fileMeta } from './fingerprint.ts';
import { rulesOfWalk } from './rules.ts';
import { newTally, visitTree } from './walk.ts';
import type { WalkedPart, WalkReply, WalkTask } from './walk-parallel.ts';

declare const self: Worker;

/** One batch of `task`'s subtrees, walked: a part a subtree, in order. */
function run(task: WalkTask, batch: number): WalkedPart[] {
  const rules = rulesOfWalk(task.walk, task.rules);
  const time = { granularityMs: task.granularityMs, coarseMs: task.coarseMs, now: Date.now };
  const out: WalkedPart[] = [];
  for (const from of task.batches[batch]) {
    const paths: string[] = [];
    const fingerprints: string[] = [];
    const numbers: number[] = [];
    const directories: string[] = [];
    const passedOver: [string, string, boolean][] = [];
    const temporary: [string, number][] = [];
    const tally = newTally();
    let seen = 0;
    visitTree(
      {
        root: task.root,
        from,
        rules,
        followSymlinks: false,
        cap: task.cap,
        fromListed: true,
        onPassOver: (path, reason, directory) => passedOver.push([path, reason, directory]),
        onTemporary: (path, mtimeMs) => temporary.push([path, mtimeMs]),
      },
      tally,
      (path, kind, info) => {
        seen++;
        if (kind === 'directory') directories.push(path);
        else if (info !== null) {
          const meta = fileMeta(time, info);
          paths.push(path);
          fingerprints.push(meta.fingerprint);
          numbers.push(meta.size, meta.mtimeMs, meta.ctimeMs, meta.mode ?? -1);
        }
      },
    );
    out.push({
      files: paths.length,
      paths: paths.join('\u0000'),
      fingerprints: fingerprints.join('\u0000'),
      numbers: new Float64Array(numbers),
      directories,
      passedOver,
      unreadable: tally.unreadable,
      temporary,
      seen,
      incomplete: tally.incomplete ?? null,
    });
  }
  return out;
}

self.onmessage = (event: MessageEvent<WalkTask>) => {
  const task = event.data;
  for (;;) {
    const batch = Atomics.add(task.claims, 0, 1);
    if (batch >= task.batches.length) break;
    let reply: WalkReply;
    try {
      reply = { id: task.id, batch, parts: run(task, batch) };
    } catch (err) {
      postMessage({ id: task.id, batch, error: String((err as Error)?.message ?? err) } satisfies WalkReply);
      continue;
    }
    postMessage(reply, 'parts' in reply ? reply.parts.map((p) => p.numbers.buffer as ArrayBuffer) : []);
  }
  postMessage({ id: task.id, done: true } satisfies WalkReply);
};
