// V8 block coverage (what NODE_V8_COVERAGE and v8.takeCoverage() write) to
// executed source lines. V8 counts byte ranges of the code it ran; code
// transpiled on the fly (tsx, ts-node, babel) is mapped back to the file's own
// lines through the source map Node stores beside the counts
// (`source-map-cache`, present whenever source maps are enabled, as tsx does).
// Plain JavaScript is mapped through the file's own text.
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const RangeSchema = z.object({ startOffset: z.number().int().nonnegative(), endOffset: z.number().int().nonnegative(), count: z.number().nonnegative() });

export const V8CoverageSchema = z.object({
  result: z.array(
    z.object({
      url: z.string(),
      functions: z.array(z.object({ functionName: z.string().max(1000).optional(), ranges: z.array(RangeSchema) })),
    }),
  ),
  'source-map-cache': z
    .record(
      z.string(),
      z.object({
        lineLengths: z.array(z.number().int().nonnegative()).optional(),
        data: z
          .object({
            mappings: z.string(),
            sources: z.array(z.string().nullable()),
            sourceRoot: z.string().optional().nullable(),
          })
          .nullable()
          .optional(),
      }),
    )
    .optional(),
});
export type V8Coverage = z.infer<typeof V8CoverageSchema>;

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_VALUE = new Map([...B64].map((c, i) => [c, i]));

/** One mapping segment: a generated position and the original one it came from. */
interface Segment {
  genLine: number;
  genCol: number;
  source: number;
  origLine: number;
}

/** Decodes a source map's `mappings` (base64 VLQ); segments without an original position are left out. */
export function decodeMappings(mappings: string): Segment[] {
  const out: Segment[] = [];
  let source = 0;
  let origLine = 0;
  let genLine = 0;
  // relative to the previous segment: the generated column within its line, the rest across the whole map
  let genCol = 0;
  let i = 0;
  const fields: number[] = [];
  while (i < mappings.length) {
    const c = mappings[i];
    if (c === ';') {
      genLine += 1;
      genCol = 0;
      i += 1;
      continue;
    }
    if (c === ',') {
      i += 1;
      continue;
    }
    fields.length = 0;
    while (i < mappings.length && mappings[i] !== ',' && mappings[i] !== ';') {
      let value = 0;
      let shift = 0;
      for (;;) {
        const digit = B64_VALUE.get(mappings[i++]);
        if (digit === undefined) throw new Error('malformed source map mappings');
        value += (digit & 31) * 2 ** shift;
        shift += 5;
        if (!(digit & 32)) break;
      }
      fields.push(value % 2 === 1 ? -(value - 1) / 2 : value / 2);
    }
    genCol += fields[0] ?? 0;
    if (fields.length >= 4) {
      source += fields[1];
      origLine += fields[2];
      out.push({ genLine, genCol, source, origLine });
    }
  }
  return out;
}

/**
 * The execution count at each of `offsets` (ascending): the innermost V8 range
 * holding it decides (V8 ranges nest: a function, then its blocks). An offset
 * no range holds ran 0 times in this window.
 */
export function countsAt(ranges: Array<{ startOffset: number; endOffset: number; count: number }>, offsets: number[]): number[] {
  const sorted = [...ranges].sort((a, b) => a.startOffset - b.startOffset || b.endOffset - a.endOffset);
  const stack: typeof sorted = [];
  const out: number[] = [];
  let next = 0;
  for (const offset of offsets) {
    while (next < sorted.length && sorted[next].startOffset <= offset) {
      while (stack.length && stack[stack.length - 1].endOffset <= sorted[next].startOffset) stack.pop();
      stack.push(sorted[next]);
      next += 1;
    }
    while (stack.length && stack[stack.length - 1].endOffset <= offset) stack.pop();
    out.push(stack.length ? stack[stack.length - 1].count : 0);
  }
  return out;
}

/** Offsets of the first non-blank character of each line (1-based line → offset). */
function lineFirstChars(text: string): Array<{ line: number; offset: number }> {
  const out: Array<{ line: number; offset: number }> = [];
  let line = 1;
  let atStart = true;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      line += 1;
      atStart = true;
    } else if (atStart && c !== 32 && c !== 9 && c !== 13) {
      out.push({ line, offset: i });
      atStart = false;
    }
  }
  return out;
}

/**
 * The lines where a function of this name is declared (`function name(`,
 * `name = function`, `name: (…) =>`, a method `name(…) {`), for coverage at
 * function level: V8 names `exports.total` or `Cart.add` by their last part.
 */
export function declarationLines(text: string, functionName: string): number[] {
  const name = functionName.split('.').at(-1) ?? '';
  if (!/^[A-Za-z_$][\w$]*$/.test(name)) return [];
  const n = name.replace(/\$/g, '\\$');
  const patterns = [
    new RegExp(`\\bfunction\\s*\\*?\\s*${n}\\s*[(<]`),
    new RegExp(`(?:^|[^\\w$])${n}\\s*[:=]\\s*(?:async\\s+)?(?:function\\b|\\([^)]*\\)\\s*(?::[^=]*)?=>|[A-Za-z_$][\\w$]*\\s*=>)`),
    new RegExp(`^\\s*(?:(?:static|async|get|set|public|private|protected|override)\\s+)*\\*?${n}\\s*(?:<[^>]*>)?\\([^)]*\\)\\s*(?::[^{]*)?\\{\\s*$`),
  ];
  const out: number[] = [];
  text.split('\n').forEach((line, i) => {
    if (patterns.some((p) => p.test(line))) out.push(i + 1);
  });
  return out;
}

export interface ExecutedLines {
  /** absolute path → executed 1-based lines */
  files: Map<string, Set<number>>;
}

/** A file URL or path as an absolute path, or null (node:internal, data: URLs, evals). */
function pathOfUrl(url: string): string | null {
  if (url.startsWith('file://')) {
    try {
      return fileURLToPath(url);
    } catch {
      return null;
    }
  }
  return url.startsWith('/') ? url : null;
}

/**
 * The lines one coverage window executed, for the scripts `keep` accepts (by
 * absolute path). `readSource` gives a plain script's text (no source map).
 */
export async function executedLines(
  coverage: V8Coverage,
  keep: (abs: string) => boolean,
  readSource: (abs: string) => Promise<string | null>,
): Promise<ExecutedLines> {
  const files = new Map<string, Set<number>>();
  const add = (abs: string, line: number) => {
    let set = files.get(abs);
    if (!set) files.set(abs, (set = new Set()));
    set.add(line);
  };
  const maps = coverage['source-map-cache'] ?? {};
  for (const script of coverage.result) {
    const abs = pathOfUrl(script.url);
    if (!abs || !keep(abs)) continue;
    const ranges = script.functions.flatMap((f) => f.ranges);
    if (!ranges.some((r) => r.count > 0)) continue;
    const map = maps[script.url];
    if (map?.data && map.lineLengths) {
      const starts = [0];
      for (const len of map.lineLengths) starts.push(starts[starts.length - 1] + len + 1);
      const segments = decodeMappings(map.data.mappings);
      const offsets = segments.map((s) => (starts[s.genLine] ?? Number.MAX_SAFE_INTEGER) + s.genCol);
      // segments come line by line, column by column: their offsets ascend
      const order = offsets.map((o, i) => [o, i] as const).sort((a, b) => a[0] - b[0]);
      const counts = countsAt(ranges, order.map(([o]) => o));
      const sources = map.data.sources.map((s) => {
        if (!s) return null;
        try {
          return pathOfUrl(new URL(`${map.data?.sourceRoot ?? ''}${s}`, script.url).href);
        } catch {
          return null;
        }
      });
      order.forEach(([, i], k) => {
        if (counts[k] <= 0) return;
        const src = sources[segments[i].source];
        if (src && keep(src)) add(src, segments[i].origLine + 1);
      });
      continue;
    }
    const text = await readSource(abs);
    if (text === null) continue;
    // The script V8 ran is not the file (jest's and vitest's modules, transformed
    // and run in a vm, whose source maps Node does not keep): its offsets say
    // nothing of the file's lines, its function names do
    // (such a script is longer than the file: a wrapper and an inline source map)
    if (ranges.some((r) => r.endOffset > text.length)) {
      for (const fn of script.functions) {
        if (!fn.functionName || !(fn.ranges[0]?.count > 0)) continue;
        for (const line of declarationLines(text, fn.functionName)) add(abs, line);
      }
      continue;
    }
    const points = lineFirstChars(text);
    const counts = countsAt(ranges, points.map((p) => p.offset));
    points.forEach((p, k) => {
      if (counts[k] > 0) add(abs, p.line);
    });
  }
  return { files };
}
