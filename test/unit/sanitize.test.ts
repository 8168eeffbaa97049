import { describe, expect, it } from 'vitest';
import { csvCellSafe, jsonSafe, terminalSafe, toSafeJson } from '../../src/text/sanitize.js';

describe('terminalSafe', () => {
  it.each([
    ['ESC sequence (clear screen)', '\u001b[2J', '\\x1b[2J'],
    ['OSC title ended by BEL', '\u001b]0;owned\u0007', '\\x1b]0;owned\\x07'],
    ['backspaces', 'invalid\b\b\b\b\b\b\bvalid', 'invalid\\x08\\x08\\x08\\x08\\x08\\x08\\x08valid'],
    ['C1 CSI', '\u009b31m', '\\x9b31m'],
    ['DEL', 'a\u007fb', 'a\\x7fb'],
    ['NUL, tab, CR and LF', 'a\u0000\t\r\nb', 'a\\x00\\x09\\x0d\\x0ab'],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'a\\u{2028}b\\u{2029}c'],
    ['bidi override', 'abc\u202edcba', 'abc\\u{202e}dcba'],
    ['lone high surrogate', 'a\ud800b', 'a\\u{d800}b'],
    ['lone low surrogate', 'a\udc00b', 'a\\u{dc00}b'],
  ])('%s is shown, not run', (_name, raw, shown) => {
    expect(terminalSafe(raw)).toBe(shown);
  });

  it('leaves printable text alone, accents, CJK and emoji (surrogate pairs) included', () => {
    const text = '550 5.1.1 <josé@exämple.test>: 用户不存在 📭 — "quoted" \\x1b';
    expect(terminalSafe(text)).toBe(text);
  });
});

describe('jsonSafe', () => {
  it('escapes DEL, C1 and U+2028/2029, and a parser reads the same value back', () => {
    const value = { reason: 'a\u007fb\u0085c\u009bd\u2028e\u2029f\u0000g' };
    const json = toSafeJson(value);
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    expect(json).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(json).toContain('\\u009b');
    expect(JSON.parse(json)).toEqual(value);
  });

  it('leaves a JSON text without such characters as it is', () => {
    const json = JSON.stringify({ email: 'ann@example.test', reason: 'é 用户 📭' });
    expect(jsonSafe(json)).toBe(json);
  });
});

describe('csvCellSafe (OWASP CSV injection)', () => {
  it.each(['=1+1', '+1', '-1', '@SUM(A1)', '\t=1', '\r=1'])('%j gets a leading quote', (cell) => {
    expect(csvCellSafe(cell)).toBe(`'${cell}`);
  });

  it.each(['550 5.1.1 user unknown', 'timeout (mx.example.test)', '', "'already"])('%j stays as it is', (cell) => {
    expect(csvCellSafe(cell)).toBe(cell);
  });
});
