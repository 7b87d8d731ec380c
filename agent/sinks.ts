import type { AgentEvent, EventSink } from './types';

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

/** Sends each event to every sink, in order. */
export function fanOut(...sinks: EventSink[]): EventSink {
  return {
    async emit(event) {
      for (const sink of sinks) await sink.emit(event);
    },
  };
}

function short(value: unknown, max = 160): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const oneLine = (text ?? '').replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

/** One human-readable line per event. */
export function formatEvent(event: AgentEvent): string {
  const p: Record<string, unknown> = event.payload;
  switch (event.type) {
    case 'phase':
      return `── ${String(p.phase ?? event.phase ?? '').toUpperCase()} ${p.status ?? 'started'}${p.durationMs !== undefined ? ` (${p.durationMs} ms)` : ''}`;
    case 'gate': {
      const mark = p.passed ? 'PASS' : 'FAIL';
      const diags = Array.isArray(p.diagnostics)
        ? (p.diagnostics as Array<{ kind: string; file?: string; line?: number; message: string }>)
            .slice(0, 3)
            .map((d) => `\n      ${d.kind}${d.file ? ` ${d.file}${d.line ? `:${d.line}` : ''}` : ''}: ${short(d.message, 200)}`)
            .join('')
        : '';
      return `   gate ${String(p.gate).padEnd(10)} ${mark} ${p.durationMs ?? 0} ms  ${short(p.detail ?? '')}${diags}`;
    }
    case 'suspects': {
      const list = (p.suspects as Array<{ file: string; symbol: string; startLine: number; score: number; reasons: string[] }>) ?? [];
      return ['   suspects:', ...list.map((s, i) => `     ${i + 1}. ${s.file}:${s.startLine} ${s.symbol} (${s.score.toFixed(2)}) ${short(s.reasons.join('; '), 120)}`)].join('\n');
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
      return `   candidate ${short(p.description ?? p, 160)}`;
    case 'usage':
      return `   usage ${short(p)}`;
    case 'final':
      return `══ ${p.status ?? ''} ${p.exitReason ?? ''}${p.detail ? `: ${short(p.detail, 200)}` : ''}`;
    default:
      return `   ${event.type} ${short(p)}`;
  }
}

/** Prints each event as it happens. */
export function createPrintSink(write: (text: string) => void = (t) => process.stdout.write(t)): EventSink {
  return {
    async emit(event) {
      write(`${formatEvent(event)}\n`);
    },
  };
}
