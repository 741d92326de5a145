/**
 * The crash test's child: opens the host from a config file and materializes the whole
 * mount. The parent kills it with SIGKILL at a random moment.
 */
import { loadConfig } from '../src/config.ts';
import { openHost } from '../src/host.ts';

const [configFile] = process.argv.slice(2);
const config = await loadConfig(process.cwd(), configFile);
const host = await openHost(config, { watch: false });
process.stdout.write('open\n');
const started = performance.now();
const result = await host.workspace.mounts[0].materialize({ force: false });
process.stdout.write(`${result.ok ? 'done' : 'refused'} ${Math.round(performance.now() - started)}\n`);
host.close();
