export { namesCr, namesBom } from './names-cr.ts';
