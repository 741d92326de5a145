/**
 * A grep Worker for `grep-cores.test.ts` whose batches say how they behave, by their first
 * item's text: `busy <ms>` searches that long on this thread, telling of its progress as
 * the real one does; `stuck <ms>` that long without a word; `die` ends the Worker; anything
 * else answers at once (a batch of paths, by its first path). Every file is answered `'none'`.
 */
declare const self: Worker;
export {};

const decoder = new TextDecoder();
const spin = (ms: number, progress?: () => void) => {
  const start = performance.now();
  let told = start;
  for (let now = start; now - start < ms; now = performance.now()) {
    if (progress !== undefined && now - told >= 50) {
      progress();
      told = now;
    }
  }
};

self.onmessage = (event: MessageEvent<{ id: number; prescan?: { items: { bytes: Uint8Array }[]; read?: { paths: string[] } }; heapBytes?: number }>) => {
  const { id, prescan } = event.data;
  if (prescan === undefined) return;
  // A batch of paths says it by its first path, and each is answered as a file of no bytes that holds no match.
  const read = prescan.read;
  const [how, ms] = (read === undefined ? decoder.decode(prescan.items[0].bytes) : read.paths[0]).split(' ');
  if (how === 'die') process.exit(3);
  if (how === 'busy') spin(Number(ms), () => self.postMessage({ id, progress: 0 }));
  if (how === 'stuck') spin(Number(ms));
  self.postMessage({ id, verdicts: read === undefined ? prescan.items.map(() => 'none') : read.paths.map(() => 0), slow: false });
};
