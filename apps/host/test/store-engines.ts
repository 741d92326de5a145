/**
 * Both store engines for tests that hold for either: each makes a fresh store and opens
 * it (again) by where it is, in this process or, as a line of code, in a child.
 */
import { join } from 'node:path';
import { openStore } from '../src/store/open-store.ts';
import { openPgStore } from '../src/store/postgres/open.ts';
import type { Store } from '../src/store/store.ts';
import { tempDir } from './fixtures.ts';
import { freshDatabase } from './pg-fixtures.ts';

/** A fresh store's place: open it as often as needed. */
export interface StorePlace {
  open(): Promise<Store>;
  /** A module's code that opens it as `store` (for a child process). */
  readonly openCode: string;
}

export interface StoreEngine {
  readonly name: string;
  fresh(): Promise<StorePlace>;
}

const src = (file: string) => JSON.stringify(join(import.meta.dir, '../src/store', file));

export const STORE_ENGINES: readonly StoreEngine[] = [
  {
    name: 'SQLite',
    async fresh() {
      const path = join(tempDir('ws-store-'), 'nested/dir/store.sqlite');
      return {
        open: () => openStore(path),
        openCode: `import { openStore } from ${src('open-store.ts')};\nconst store = await openStore(${JSON.stringify(path)});`,
      };
    },
  },
  {
    name: 'PostgreSQL',
    async fresh() {
      const url = await freshDatabase();
      return {
        open: async () => (await openPgStore(url, { host: 'test-host', roots: ['/r'] })).store,
        openCode: `import { openPgStore } from ${src('postgres/open.ts')};\nconst { store } = await openPgStore(${JSON.stringify(url)}, { host: 'test-host', roots: ['/r'] });`,
      };
    },
  },
];
