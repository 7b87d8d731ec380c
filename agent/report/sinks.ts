import type { RepairTimings } from '../phases/contract';
import type { AgentEvent, EventSink } from '../types';

// Event sinks for the pipeline: an array (tests, the CLI's final report), a
// printer (the CLI's live trajectory) and a fan-out. The database sink lives
// with the worker (agent/worker/db-sink.ts).

/** Keeps every event in memory, in order. */
export class ArraySink implements EventSink {
  readonly events: AgentEvent[] = [];

  async emit(event: AgentEvent): Promise<void> {
    // a copy: later mutation by the emitter must not rewrite history
    this.events.push(structuredClone(event));
  }

  ofType(type: AgentEvent['type']): AgentEvent[] {
    return this.events.filter((e) => e.type === type);
  }
}

/** How much of the run went to commands a time limit stopped, in words (the run's log and the CLI's report say it). */
export function timeoutLine(t: Pick<RepairTimings, 'wallMs' | 'timeouts' | 'timeoutMs'>): string {
  if (t.timeouts === 0) return 'no command timed out';
  const share = t.wallMs > 0 ? Math.min(100, Math.round((t.timeoutMs / t.wallMs) * 100)) : 0;
  return `${t.timeouts} command${t.timeouts === 1 ? '' : 's'} timed out: ${(t.timeoutMs / 1000).toFixed(1)} s, ${share}% of the run's ${(t.wallMs / 1000).toFixed(1)} s`;
}

function short(value: unknown, max = 160): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const oneLine = (text ?? '').replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

/**
 * A gate's outcome in words. RED and base "pass" when the targets fail, which
 * reads backwards as PASS/FAIL: they say what happened and mark the outcome
 * a repair wants.
 */
export function gateOutcome(gate: string, passed: boolean, verdict: { notRun?: unknown; tests?: unknown; changeEditsOnlyTests?: unknown } = {}): string {
  const absent = typeof verdict.notRun === 'number' && verdict.notRun > 0 && (!Array.isArray(verdict.tests) || verdict.notRun >= verdict.tests.length);
  if (gate === 'red') {
    if (!passed && absent) return 'the target tests did not run on the head ✗ (not reproduced)';
    return passed ? 'the target tests fail on the head ✓ (reproduced)' : 'the target tests pass on the head ✗ (not reproduced)';
  }
  if (gate === 'base') {
    // a test the change adds has nothing to say at the base: neither "broke" nor "not caused"
    if (!passed && absent) return 'the target tests are not at the base revision – (added by the change)';
    // nor is a test the change made stricter while it left the code alone
    if (!passed && verdict.changeEditsOnlyTests === true)
      return 'the target tests pass without the change – (the change edits only tests: new or stricter assertions)';
    return passed ? 'the target tests fail without the change too ✗ (not caused by it)' : 'the target tests pass without the change ✓ (the change broke them)';
  }
  return passed ? 'PASS' : 'FAIL';
}

/** One human-readable line per event. */
export function formatEvent(event: AgentEvent): string {
  const p: Record<string, unknown> = event.payload;
  switch (event.type) {
    case 'phase':
      return `── ${String(p.phase ?? event.phase ?? '').toUpperCase()} ${p.status ?? 'started'}${p.durationMs !== undefined ? ` (${p.durationMs} ms)` : ''}`;
    case 'gate': {
      const mark = gateOutcome(String(p.gate), !!p.passed, p);
      const diags = Array.isArray(p.diagnostics)
        ? (p.diagnostics as Array<{ kind: string; file?: string; line?: number; message: string }>)
            .slice(0, 3)
            .map((d) => `\n      ${d.kind}${d.file ? ` ${d.file}${d.line ? `:${d.line}` : ''}` : ''}: ${short(d.message, 200)}`)
            .join('')
        : '';
      return `   gate ${String(p.gate).padEnd(10)} ${mark} ${p.durationMs ?? 0} ms  ${short(p.detail ?? '')}${diags}`;
    }
    case 'suspects': {
      const list =
        (p.suspects as Array<{ file: string; symbol: string; kind?: string; startLine: number; endLine?: number; score: number; reasons: string[] }>) ?? [];
      const label = (s: (typeof list)[number]) =>
        s.kind === 'window' ? `${s.file}:${s.startLine}-${s.endLine ?? s.startLine}` : `${s.file}:${s.startLine} ${s.symbol}`;
      return ['   suspects:', ...list.map((s, i) => `     ${i + 1}. ${label(s)} (${s.score.toFixed(2)}) ${short(s.reasons.join('; '), 120)}`)].join('\n');
    }
    case 'log': {
      // a log line is already words: shown whole when it says what the run will run (detection, install); the tests it names after it
      if (typeof p.text !== 'string') return `   log ${short(p)}`;
      const tests = Array.isArray(p.tests) ? (p.tests as unknown[]).filter((t): t is string => typeof t === 'string') : [];
      const named = tests.length ? ` [${short(tests.slice(0, 5).join(', '), 300)}${tests.length > 5 ? `, +${tests.length - 5} more` : ''}]` : '';
      return `   ${p.test || p.install ? p.text : short(p.text, 400)}${named}`;
    }
    case 'evidence':
      return `   evidence: ${short(p.summary ?? p, 200)}`;
    case 'tool_call':
      return `   → ${p.tool ?? p.name ?? 'tool'} ${short(p.args ?? p.arguments ?? '', 140)}`;
    case 'observation':
      return `   ← ${short(p.text ?? p.observation ?? p, 160)}`;
    case 'thought':
      return `   · ${short(p.text ?? p, 200)}`;
    case 'candidate':
      return `   candidate ${p.rank ?? ''} ${short(p.description ?? p, 120)}${p.file ? ` at ${p.file}:${p.line}` : ''}${p.outcome ? ` → ${p.outcome}` : ''}`;
    case 'usage':
      return `   usage ${short(p)}`;
    case 'proof':
      return `   proof ${p.status === 'proven' ? '✓' : '✗'} ${short(p.detail ?? '', 240)}`;
    case 'final':
      return `══ ${p.status ?? ''} ${p.exitReason ?? ''}${p.detail ? `: ${short(p.detail, 200)}` : ''}`;
    default:
      return `   ${event.type} ${short(p)}`;
  }
}

/**
 * Prints each event as it happens. The offline policy reports a candidate
 * once its gates have judged it; the compile and GREEN verdicts before a
 * candidate line are held back and printed under it, so each candidate reads
 * before its own results.
 */
export function createPrintSink(write: (text: string) => void = (t) => process.stdout.write(t)): EventSink {
  let held: AgentEvent[] = [];
  const flush = () => {
    for (const e of held) write(`${formatEvent(e)}\n`);
    held = [];
  };
  return {
    async emit(event) {
      const gate = event.type === 'gate' ? String((event.payload as { gate?: unknown }).gate) : '';
      if (gate === 'compile' || gate === 'green') {
        held.push(event);
        return;
      }
      if (event.type === 'candidate') {
        write(`${formatEvent(event)}\n`);
        flush();
        return;
      }
      flush();
      write(`${formatEvent(event)}\n`);
    },
  };
}
