/**
 * Loaded before every test file (this package's bunfig.toml): the fixtures' removal of
 * their temporary directories becomes a hook of the whole run, after its last file.
 */
import './fixtures.ts';
