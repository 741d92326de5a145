import { join } from 'node:path';
import { describeReadmes } from '../../../test/readme-examples.ts';

/** What the examples take as given: the two ports (the tests' fakes), a hash, and a person at the disk. */
const PRELUDE = `
import { FakeDisk as __Disk } from ${JSON.stringify(join(import.meta.dir, 'fakes/disk.ts'))};
import { FakeStore as __Store } from ${JSON.stringify(join(import.meta.dir, 'fakes/store.ts'))};
const store = new __Store();
const disk = new __Disk();
const sha256Hex = (bytes: Uint8Array) => new Bun.CryptoHasher('sha256').update(bytes).digest('hex');
const hash = sha256Hex;
const personSaves = (path: string, text: string) => disk.personWrite(path, new TextEncoder().encode(text));
personSaves('src/a.ts', 'a\\n');
personSaves('src/b.ts', 'b\\n');
`;

describeReadmes({ dir: join(import.meta.dir, '..'), name: '@ws/reconcile', prelude: PRELUDE, checks: 5, rootChecks: 3 });
