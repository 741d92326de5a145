/**
 * File types by name, as ripgrep's `-t` knows them (`ts`, `py`, `rust`…): each a list
 * of globs on a file's name. The one rule: a type's globs are ripgrep's own (its
 * `--type-list`), plus the newer module extensions ripgrep has since added (`.mjs`,
 * `.cjs`, `.mts`, `.cts`); a file is of a type when its name matches one of them.
 */
import { GrepError } from './grep-error.ts';
import { unknownTypeMessage } from './notes.ts';

/** Each type's name globs. */
export const FILE_TYPES: Readonly<Record<string, readonly string[]>> = {
  asm: ['*.S', '*.asm', '*.s'],
  c: ['*.[chH]', '*.[chH].in', '*.cats'],
  clojure: ['*.clj', '*.cljc', '*.cljs', '*.cljx'],
  cmake: ['*.cmake', 'CMakeLists.txt'],
  config: ['*.cfg', '*.conf', '*.config', '*.ini'],
  cpp: ['*.[ChH]', '*.[ChH].in', '*.[ch]pp', '*.[ch]pp.in', '*.[ch]xx', '*.[ch]xx.in', '*.cc', '*.cc.in', '*.hh', '*.hh.in', '*.inl'],
  cs: ['*.cs'],
  css: ['*.css', '*.scss'],
  csv: ['*.csv'],
  dart: ['*.dart'],
  diff: ['*.diff', '*.patch'],
  docker: ['*Dockerfile*'],
  elixir: ['*.eex', '*.ex', '*.exs'],
  erlang: ['*.erl', '*.hrl'],
  go: ['*.go'],
  haskell: ['*.c2hs', '*.cpphs', '*.hs', '*.hsc', '*.lhs'],
  html: ['*.ejs', '*.htm', '*.html'],
  java: ['*.java', '*.jsp', '*.jspx', '*.properties'],
  js: ['*.js', '*.jsx', '*.vue', '*.mjs', '*.cjs'],
  json: ['*.json', 'composer.lock'],
  jsonl: ['*.jsonl'],
  kotlin: ['*.kt', '*.kts'],
  less: ['*.less'],
  lock: ['*.lock', 'package-lock.json'],
  log: ['*.log'],
  lua: ['*.lua'],
  make: ['*.mak', '*.mk', '[Gg][Nn][Uu]makefile', '[Mm]akefile', '[Mm]akefile.am', '[Mm]akefile.in'],
  markdown: ['*.markdown', '*.md', '*.mdown', '*.mkdn', '*.mdx'],
  md: ['*.markdown', '*.md', '*.mdown', '*.mkdn', '*.mdx'],
  nix: ['*.nix'],
  ocaml: ['*.ml', '*.mli', '*.mll', '*.mly'],
  perl: ['*.PL', '*.perl', '*.pl', '*.plh', '*.plx', '*.pm', '*.t'],
  php: ['*.php', '*.php3', '*.php4', '*.php5', '*.phtml'],
  protobuf: ['*.proto'],
  py: ['*.py', '*.pyi'],
  r: ['*.R', '*.Rmd', '*.Rnw', '*.r'],
  rst: ['*.rst'],
  ruby: ['*.gemspec', '*.rb', '*.rbw', '.irbrc', 'Gemfile', 'Rakefile', 'config.ru'],
  rust: ['*.rs'],
  rs: ['*.rs'],
  sass: ['*.sass', '*.scss'],
  scala: ['*.sbt', '*.scala'],
  sh: ['*.bash', '*.bashrc', '*.csh', '*.cshrc', '*.ksh', '*.kshrc', '*.sh', '*.tcsh', '*.zsh', '.bash_login', '.bash_logout', '.bash_profile', '.bashrc', '.cshrc', '.kshrc', '.login', '.logout', '.profile', '.tcshrc', '.zlogin', '.zlogout', '.zprofile', '.zshenv', '.zshrc'],
  sql: ['*.psql', '*.sql'],
  svg: ['*.svg'],
  swift: ['*.swift'],
  tex: ['*.bib', '*.cls', '*.dtx', '*.ins', '*.ltx', '*.sty', '*.tex'],
  tf: ['*.tf'],
  toml: ['*.toml', 'Cargo.lock'],
  ts: ['*.ts', '*.tsx', '*.mts', '*.cts'],
  txt: ['*.txt'],
  xml: ['*.dtd', '*.rng', '*.sch', '*.xhtml', '*.xjb', '*.xml', '*.xml.dist', '*.xsd', '*.xsl', '*.xslt'],
  yaml: ['*.yaml', '*.yml'],
  zig: ['*.zig'],
};

/** A name glob (`*`, `?`, `[…]`) as an expression over a whole file name. */
function nameExpression(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 1);
      out += glob.slice(i, close + 1);
      i = close;
    } else out += c.replace(/[\\^$.+(){}|]/g, '\\$&');
  }
  return out;
}

/**
 * A test on file names (the last part of a path) for one type, or GrepError naming the
 * known types where `type` is none of them.
 */
export function fileTypeFilter(type: string): (name: string) => boolean {
  const globs = Object.hasOwn(FILE_TYPES, type) ? FILE_TYPES[type] : undefined;
  if (globs === undefined) throw new GrepError(unknownTypeMessage(type, Object.keys(FILE_TYPES)));
  const re = new RegExp(`^(?:${globs.map(nameExpression).join('|')})$`, 's');
  return (name) => re.test(name);
}
