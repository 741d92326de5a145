/** Preloaded on the PostgreSQL run of the host's tests: what a test opened is closed after it (`engine.ts`). */
import { afterEach, beforeEach } from 'bun:test';
import { testBegins, testEnded } from './engine.ts';

beforeEach(testBegins);
afterEach(testEnded);
