/**
 * The Worker a grep's scans run in: each message is one `MatchJob`, answered with its
 * `MatchJobResult` (the hit lists moved, not copied), and now and then with the line the
 * scan has reached, so a runner that ends this Worker past its deadline can say where.
 * The one rule: nothing here decides anything — `@ws/grep`'s `runMatchJob` does.
 */
import { type MatchJob, runMatchJob } from '@ws/grep';

declare const self: Worker;

self.onmessage = (event: MessageEvent<{ id: number; job: MatchJob }>) => {
  const { id, job } = event.data;
  try {
    // The text stays here: the caller decodes its own copy only where it shows lines.
    const { text: _, ...result } = runMatchJob(job, () => performance.now(), (line) => self.postMessage({ id, progress: line }));
    const moved = [result.hits.buffer, result.gaveUp.buffer, ...(result.ends ? [result.ends.buffer] : [])];
    self.postMessage({ id, result }, [...new Set(moved)] as ArrayBuffer[]);
  } catch (err) {
    self.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
};
