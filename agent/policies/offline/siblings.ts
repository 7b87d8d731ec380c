// Built-in functions and methods that are each other's usual slip: same
// arity, same kind of result, opposite or neighbouring meaning (min/max,
// floor/ceil, startsWith/endsWith). A call to one is a site for the others.
// Grouped per language; a name may sit in one group only.

const TS_METHOD_GROUPS: string[][] = [
  ['min', 'max'],
  ['floor', 'ceil', 'round', 'trunc'],
  ['startsWith', 'endsWith'],
  ['indexOf', 'lastIndexOf'],
  ['find', 'findLast'],
  ['findIndex', 'findLastIndex'],
  ['toUpperCase', 'toLowerCase'],
  ['toLocaleUpperCase', 'toLocaleLowerCase'],
  ['trim', 'trimStart', 'trimEnd'],
  ['padStart', 'padEnd'],
  ['some', 'every'],
  ['push', 'unshift'],
  ['pop', 'shift'],
  ['reduce', 'reduceRight'],
  ['keys', 'values', 'entries'],
  ['parseInt', 'parseFloat'],
  ['slice', 'substring'],
  ['filter', 'find'],
];

const PY_FUNCTION_GROUPS: string[][] = [
  ['min', 'max'],
  ['floor', 'ceil', 'trunc'],
  ['round', 'int'],
  ['any', 'all'],
  ['startswith', 'endswith'],
  ['find', 'rfind'],
  ['index', 'rindex'],
  ['upper', 'lower'],
  ['strip', 'lstrip', 'rstrip'],
  ['ljust', 'rjust'],
  ['split', 'rsplit'],
  ['partition', 'rpartition'],
  ['keys', 'values', 'items'],
  ['append', 'extend'],
  ['sorted', 'reversed'],
  ['isdigit', 'isalpha', 'isalnum'],
];

function index(groups: string[][]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const g of groups)
    for (const name of g)
      out.set(
        name,
        g.filter((n) => n !== name),
      );
  return out;
}

const TS = index(TS_METHOD_GROUPS);
const PY = index(PY_FUNCTION_GROUPS);

/** The usual slips for a built-in function or method name, in order of how alike they are. */
export function builtinSiblings(lang: 'ts' | 'py', name: string): string[] {
  return (lang === 'ts' ? TS : PY).get(name) ?? [];
}

/** Globals a copied statement may use without a declaration in the file. */
export const TS_GLOBALS = new Set([
  'Math',
  'Number',
  'String',
  'Boolean',
  'Array',
  'Object',
  'JSON',
  'Date',
  'Map',
  'Set',
  'WeakMap',
  'Symbol',
  'BigInt',
  'Promise',
  'Error',
  'TypeError',
  'RangeError',
  'console',
  'parseInt',
  'parseFloat',
  'isNaN',
  'isFinite',
  'undefined',
  'NaN',
  'Infinity',
  'Intl',
  'RegExp',
  'process',
  'Buffer',
  'globalThis',
]);
