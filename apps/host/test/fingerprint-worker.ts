/**
 * A racy fingerprint made on the thread that asks (startup.test.ts); started as a Worker,
 * it posts one made there, with the thread's id.
 */
import { threadId } from 'node:worker_threads';
import { fileMeta } from '../src/disk/fingerprint.ts';

/** The fingerprint of a file changed just now, which carries a suffix naming where it was made. */
export function racyFingerprint(): string {
  const now = Date.now();
  const sec = Math.floor(now / 1000);
  const st = { type: 'file', dev: 1, ino: 2, mode: 0o644, size: 3, mtimeSec: sec, mtimeNsec: 0, ctimeSec: sec, ctimeNsec: 0 } as const;
  return fileMeta({ granularityMs: 2000, coarseMs: null, now: () => now }, st).fingerprint;
}

if (!Bun.isMainThread) postMessage({ fingerprint: racyFingerprint(), threadId });
