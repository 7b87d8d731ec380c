import 'server-only';
import { createHash } from 'node:crypto';
import type { TestResult } from '../../common/test-results';

// A test's id, in one place: "<classname or file>::<name>" as the JUnit
// reader builds it (parse.ts junitTestId), made unique in a report with
// " [2]", " [3]" (disambiguateTestIds), and cut to TEST_ID_MAX_CHARS with a
// "#<hash>" when stored (ingestion: the id takes part in a unique index).
// The agent matches its own runs' results against the stored ids with
// matchesTarget, which knows each of those forms.

export const TEST_ID_SEPARATOR = '::';
/** the longest id stored; longer ones are cut and keep a hash of the whole (boundTestId) */
export const TEST_ID_MAX_CHARS = 1_000;
const HASH_CHARS = 16;

export function formatTestId(key: string, name: string): string {
  return `${key}${TEST_ID_SEPARATOR}${name}`;
}

/** "<key>::<name>" → its parts (the name may hold "::" itself); null for an id without a key (typed by a person). */
export function splitTestId(id: string): { key: string; name: string } | null {
  const at = id.indexOf(TEST_ID_SEPARATOR);
  if (at < 0) return null;
  return { key: id.slice(0, at), name: id.slice(at + TEST_ID_SEPARATOR.length) };
}

/** The name part of an id, or the whole id when it has no key. */
export function testNameOf(id: string): string {
  return splitTestId(id)?.name ?? id;
}

/** The last segment of a nested name ("suite > case" → "case"). */
export function leafName(name: string): string {
  return name.split(' > ').at(-1) ?? name;
}

/** An id without the " [n]" (" [n] [m]" across reports) a repeated id gets. */
export function baseTestId(id: string): string {
  return id.replace(/( \[\d+\])+$/, '');
}

/** Test ids take part in a unique index: very long ones are cut and made unique again by a hash of the whole. */
export function boundTestId(id: string): string {
  if (id.length <= TEST_ID_MAX_CHARS) return id;
  const hash = createHash('sha256').update(id).digest('hex').slice(0, HASH_CHARS);
  return `${id.slice(0, TEST_ID_MAX_CHARS - HASH_CHARS - 2)}#${hash}`;
}

function isBounded(id: string): boolean {
  return id.length === TEST_ID_MAX_CHARS - 1 && new RegExp(`#[0-9a-f]{${HASH_CHARS}}$`).test(id);
}

/**
 * Does a result answer to a target? Exact ids first; a stored id that was cut
 * (boundTestId) matches the result whose whole id it was cut from; a target
 * without "::" (typed by a person on the CLI) matches a full name or its last
 * segment.
 */
export function matchesTarget(result: TestResult, target: string): boolean {
  if (result.id === target) return true;
  if (isBounded(target)) return boundTestId(result.id) === target;
  const parts = splitTestId(target);
  if (parts) {
    const { key, name } = parts;
    if (result.classname !== key && result.file !== key) return false;
    if (result.name === name || leafName(result.name) === name) return true;
    // CI names a file that failed to load by its absolute path on its own machine; the workspace's reports, relative to the workspace
    return name.startsWith('/') && /^[^/].*\.[cm]?[jt]sx?$/.test(result.name) && name.endsWith(`/${result.name}`);
  }
  return result.name === target || leafName(result.name) === target || result.name.endsWith(` > ${target}`);
}

/** Is a result the target, or one of its instances ("<id> [2]", …)? */
export function isInstanceOf(result: TestResult, targetId: string): boolean {
  const base = baseTestId(targetId);
  return matchesTarget(result, targetId) || baseTestId(result.id) === base || matchesTarget(result, base);
}
