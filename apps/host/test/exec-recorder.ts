/**
 * Preloaded by `start-again.test.ts` (`bun --preload`): each time Bun starts a script in a
 * process, a line with the process's id and what `MIMALLOC_PURGE_DELAY` and
 * `BUN_JSC_useFTLJIT` it was started with ("-": none). A process that replaces itself
 * (`execve`) writes two lines, one id.
 */
import { appendFileSync } from 'node:fs';

const out = process.env.WS_EXEC_OUT;
if (out !== undefined) appendFileSync(out, `${process.pid} ${process.env.MIMALLOC_PURGE_DELAY ?? '-'} ${process.env.BUN_JSC_useFTLJIT ?? '-'}\n`);
