import { join } from 'node:path';
import { describeReadmes } from '../../../test/readme-examples.ts';

describeReadmes({ dir: join(import.meta.dir, '..'), name: '@ws/grep', checks: 5, rootChecks: 1 });
