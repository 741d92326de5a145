import { describe, expect, test } from 'bun:test';
import { namesBom, namesCr } from '../src/index.ts';

const CR = '\r';
const BOM = '\uFEFF';

describe('namesCr', () => {
  const crSpellings = [
    ['a literal CR', `x${CR}`],
    ['\\r', String.raw`\r$`],
    ['\\x0d', String.raw`\x0d`],
    ['\\x0D', String.raw`\x0D`],
    ['\\u000d', String.raw`\u000d`],
    ['\\u000D', String.raw`\u000D`],
    ['\\cM', String.raw`\cM`],
    ['\\cm', String.raw`\cm`],
    ['\\015', String.raw`\015`],
    ['\\15 with fewer than 15 groups', String.raw`(a)\15`],
    ['a backslash before a literal CR', `\\${CR}`],
    ['three backslashes and r (an escaped backslash, then \\r)', String.raw`\\\r`],
    ['\\c not followed by a letter, then \\r', String.raw`\c\r`],
  ] as const;
  for (const [name, pattern] of crSpellings) {
    test(`names a CR: ${name}, outside and inside a class`, () => {
      expect(namesCr(pattern)).toBe(true);
      expect(namesCr(`[${pattern.replace(/[$()]/g, '')}]`)).toBe(true);
    });
  }

  test('names a CR as the end of a class range', () => {
    expect(namesCr(String.raw`[\r-\x20]`)).toBe(true);
    expect(namesCr(String.raw`[\x00-\r]`)).toBe(true);
  });

  const notCr = [
    ['an escaped backslash before r', String.raw`\\r`],
    ['an escaped backslash before x0d', String.raw`\\x0d`],
    ['\\X0D (an identity escape)', String.raw`\X0D`],
    ['\\CM (an identity escape)', String.raw`\CM`],
    ['\\u{d} (no u flag: u repeated)', String.raw`\u{d}`],
    ['\\x0 without a second hex digit', String.raw`\x0`],
    ['\\15 as a backreference (15 groups)', `${'(a)'.repeat(15)}\\15`],
    ['\\0015 (\\001 then 5)', String.raw`\0015`],
    ['\\c+ inside a class (not a control letter)', String.raw`[\c+M]`],
    ['a class that contains CR without naming it', String.raw`[\x00-\x1f]\s`],
    ['a plain pattern', 'two$'],
    ['the empty pattern', ''],
  ] as const;
  for (const [name, pattern] of notCr) {
    test(`names no CR: ${name}`, () => {
      expect(namesCr(pattern)).toBe(false);
    });
  }
});

describe('namesBom', () => {
  const bomSpellings = [
    ['a literal U+FEFF', `^${BOM}`],
    ['\\uFEFF', String.raw`^\uFEFF`],
    ['\\ufeff', String.raw`\ufeff`],
    ['\\uFeFf', String.raw`\uFeFf`],
    ['a backslash before a literal U+FEFF', `\\${BOM}`],
  ] as const;
  for (const [name, pattern] of bomSpellings) {
    test(`names U+FEFF: ${name}, outside and inside a class`, () => {
      expect(namesBom(pattern)).toBe(true);
      expect(namesBom(`[${pattern.replace('^', '')}]`)).toBe(true);
    });
  }

  const notBom = [
    ['an escaped backslash before uFEFF', String.raw`\\uFEFF`],
    ['\\UFEFF (an identity escape)', String.raw`\UFEFF`],
    ['\\u{FEFF} (no u flag)', String.raw`\u{FEFF}`],
    ['\\uFEF without a fourth hex digit', String.raw`\uFEF`],
    ['a CR pattern', String.raw`\r$`],
  ] as const;
  for (const [name, pattern] of notBom) {
    test(`names no U+FEFF: ${name}`, () => {
      expect(namesBom(pattern)).toBe(false);
    });
  }

  test('a CR pattern names no BOM and a BOM pattern names no CR', () => {
    expect(namesBom(String.raw`\r`)).toBe(false);
    expect(namesCr(String.raw`\uFEFF`)).toBe(false);
  });
});
