import { join } from 'node:path';
import { describeReadmes } from '../../../test/readme-examples.ts';

describeReadmes({ dir: join(import.meta.dir, '..'), name: '@ws/paging', checks: 6, rootChecks: 1 });
