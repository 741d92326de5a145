/**
 * A tree shaped like a real repository, for benchmarks that time ws as users meet it: the
 * text files of this repository's `node_modules` (real source, docs and JSON) copied into
 * several directories until there are at least 40,000 files, with nested `.gitignore`
 * files, some CRLF files and some binary files, committed to git so `git status` has an
 * index to compare with. And the reference commands: a benchmark whose reference is
 * missing fails, so a missing comparison is never a pass.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';

const REPO = resolve(import.meta.dir, '../../..');
const TEXT = /\.(js|mjs|cjs|ts|mts|cts|json|md)$/;
/** Files over this are passed over when copying: a real tree's text files are small. */
const MAX_COPIED = 1 << 20;
/** Bump when the recipe changes, so a cached tree is made again. */
const RECIPE = 2;

/** What the tree holds. */
export interface RealTree {
  readonly root: string;
  readonly files: number;
  readonly textBytes: number;
}

function sourceFiles(): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const visit = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names.sort()) {
      const abs = join(dir, name);
      let st: ReturnType<typeof statSync>;
      try {
        st = statSync(abs);
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        const key = `${st.dev}:${st.ino}`;
        if (seen.has(key)) continue;
        seen.add(key);
        visit(abs);
      } else if (st.isFile() && TEXT.test(name) && st.size <= MAX_COPIED) {
        out.push(abs);
      }
    }
  };
  visit(join(REPO, 'node_modules'));
  return out;
}

/**
 * The tree, made once per recipe and kept in the temp directory (`WS_BENCH_TREE` to put it
 * elsewhere): at least `minFiles` text files, CRLF in every 7th, a binary file in every
 * 200th directory, a `.gitignore` at each copy's top and in every 50th directory.
 */
export function realTree(minFiles = 40_000): RealTree {
  const root = process.env.WS_BENCH_TREE ?? join(tmpdir(), `ws-bench-real-tree-${RECIPE}-${minFiles}`);
  const manifest = join(root, '.bench-tree.json');
  if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, 'utf8')) as RealTree;
  const sources = sourceFiles();
  if (sources.length === 0) throw new Error('real-tree: no text files under node_modules; run bun install first.');
  const base = join(REPO, 'node_modules');
  let files = 0;
  let textBytes = 0;
  const dirs = new Set<string>();
  for (let copy = 0; files < minFiles; copy++) {
    const top = join(root, `copy${copy}`);
    mkdirSync(top, { recursive: true });
    writeFileSync(join(top, '.gitignore'), '*.map\ncoverage/\n');
    for (const [i, src] of sources.entries()) {
      // node_modules and hidden directories (Bun keeps packages under .bun) are passed over
      // by default; the copies are source a person would search.
      const rel = relative(base, src)
        .split('/')
        .map((part) => (part === 'node_modules' ? 'deps' : part.replace(/^\.+(?=.)/, '')))
        .join('/');
      const to = join(top, rel);
      const dir = dirname(to);
      if (!dirs.has(dir)) {
        mkdirSync(dir, { recursive: true });
        dirs.add(dir);
        if (dirs.size % 50 === 0) writeFileSync(join(dir, '.gitignore'), 'ignored-*.txt\n');
        if (dirs.size % 200 === 0) writeFileSync(join(dir, 'blob.bin'), new Uint8Array([0, 1, 2, 3, 0, 255, 7, 0]));
      }
      // Each copy's files differ by a last line, so the store cannot keep one blob for all copies.
      const text = `${readFileSync(src, 'utf8')}\n// copy ${copy}\n`;
      const written = i % 7 === 0 ? text.replace(/\r?\n/g, '\r\n') : text;
      writeFileSync(to, written);
      textBytes += Buffer.byteLength(written);
      files++;
    }
  }
  const git = (...args: string[]) => {
    const r = Bun.spawnSync(['git', ...args], { cwd: root, stdout: 'ignore', stderr: 'pipe' });
    if (r.exitCode !== 0) throw new Error(`real-tree: git ${args[0]} failed: ${r.stderr.toString().trim()}`);
  };
  git('init', '-q');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@localhost', 'add', '-A');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@localhost', 'commit', '-qm', 'tree');
  const tree: RealTree = { root, files, textBytes };
  writeFileSync(manifest, JSON.stringify(tree));
  return tree;
}

/**
 * The path of a reference command, installing its Debian package where it is missing and
 * this process may (CI runs as root). Throws where it cannot be had: the benchmark fails.
 */
export function reference(command: string, debianPackage: string): string {
  const found = Bun.which(command);
  if (found) return found;
  if (process.getuid?.() === 0 && Bun.which('apt-get')) {
    Bun.spawnSync(['apt-get', 'install', '-y', '-q', debianPackage], { stdout: 'ignore', stderr: 'ignore' });
    const again = Bun.which(command);
    if (again) return again;
  }
  throw new Error(`the reference ${command} is missing and could not be installed (apt-get install ${debianPackage}); this benchmark compares with it, so it fails.`);
}
