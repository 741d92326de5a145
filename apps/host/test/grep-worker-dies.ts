/**
 * A grep Worker for `grep-runner.test.ts` that answers its first scan as the real one does
 * and ends itself at its second, as a Worker that crashed would.
 */
import { runMatchJob, type MatchJob } from '@ws/grep';

declare const self: Worker;

let scans = 0;
self.onmessage = (event: MessageEvent<{ id: number; job?: MatchJob }>) => {
  const { id, job } = event.data;
  if (job === undefined) return;
  if (++scans > 1) process.exit(3);
  const { text: _, ...result } = runMatchJob(job, () => performance.now());
  self.postMessage({ id, result });
};
