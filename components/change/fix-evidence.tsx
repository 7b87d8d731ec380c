import type { FixView } from '@/lib/fixes/views';
import { formatCost, formatCostExact, formatDuration, formatTokens } from '@/common/format';
import { policyLabel } from '@/common/labels';

const GATE_LABEL: Record<string, { name: string; expect: string }> = {
  red: { name: 'RED', expect: 'target tests fail without the fix' },
  green: { name: 'GREEN', expect: 'target tests pass with the fix' },
  regression: { name: 'Regression', expect: 'the full suite passes' },
  final: { name: 'Final rerun', expect: 'a clean checkout with only this diff passes' },
};

// RED is a success when the tests *failed*: the bug was reproduced.
function verdictWord(gate: string, passed: boolean, unproven: boolean): string {
  if (gate === 'red') return passed ? 'failed as expected' : 'did not fail';
  if (unproven) return 'passed, proves nothing';
  return passed ? 'passed' : 'failed';
}

type Evidence = FixView['evidence'];

/** RED → GREEN → regression → final rerun, each with its verdict and time; then the proof when the run made one. */
export function GateChain({ gates, proof = null }: { gates: Evidence['gates']; proof?: Evidence['proof'] }) {
  if (gates.length === 0) return <p className="muted small">No validation evidence was recorded.</p>;
  return (
    <>
      <ol className="gate-chain" aria-label="Validation">
        {gates.map((g) => (
          <li
            key={g.gate}
            // an unproven pass is never a green check
            className={`gate ${g.unproven ? 'gate-warn' : g.passed ? 'gate-ok' : 'gate-bad'}`}
            data-testid="fix-gate"
            data-gate={g.gate}
            data-passed={g.passed}
            data-unproven={g.unproven || undefined}
            title={g.unproven ? `${g.detail ?? ''} — but a target also passes without the fix` : (g.detail ?? GATE_LABEL[g.gate]?.expect)}
          >
            <span className="gate-name">{GATE_LABEL[g.gate]?.name ?? g.gate}</span>
            <span className="gate-verdict">{verdictWord(g.gate, g.passed, g.unproven)}</span>
            <span className="gate-time">
              {formatDuration(g.durationMs)}
              {g.testCount !== null ? ` · ${g.testCount} tests` : ''}
            </span>
          </li>
        ))}
        {proof && (
          <li className={`gate ${proof.status === 'proven' ? 'gate-ok' : 'gate-warn'}`} data-testid="fix-proof" data-status={proof.status} title={proof.detail}>
            <span className="gate-name">Proof</span>
            <span className="gate-verdict">{proof.label}</span>
            <span className="gate-time">
              {proof.withFix ? `${proof.withFix.passed}/${proof.withFix.runs} with` : ''}
              {proof.withoutFix ? ` · ${proof.withoutFix.failed}/${proof.withoutFix.runs} failed without` : ''}
            </span>
          </li>
        )}
      </ol>
      {proof && proof.status !== 'proven' && (
        <p className="fix-unproven small" role="note" data-testid="fix-proof-detail">
          <strong>{proof.label}.</strong> {proof.detail}
          {proof.order === 'shuffled' && proof.seeds.length > 0 ? ` Seeds: ${proof.seeds.join(', ')}.` : ''}
        </p>
      )}
    </>
  );
}

export function FixEvidence({ fix }: { fix: FixView }) {
  return (
    <div className="fix-evidence" data-testid="fix-evidence">
      <GateChain gates={fix.evidence.gates} proof={fix.evidence.proof} />
      <dl className="fix-figures">
        <div>
          <dt>Tool calls</dt>
          <dd data-testid="fix-tool-calls">{fix.run.toolCalls}</dd>
        </div>
        <div>
          <dt>Tokens</dt>
          <dd title={`${fix.run.promptTokens} prompt + ${fix.run.completionTokens} completion`}>
            {formatTokens(fix.run.promptTokens + fix.run.completionTokens)}
          </dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd title={formatCostExact(fix.run.costUsd)}>{formatCost(fix.run.costUsd)}</dd>
        </div>
        <div>
          <dt>Run time</dt>
          <dd>{formatDuration(fix.run.durationMs)}</dd>
        </div>
        <div>
          <dt>Policy</dt>
          <dd>
            {policyLabel(fix.run.policy)}
            {fix.run.model ? ` · ${fix.run.model}` : ''}
          </dd>
        </div>
        <div>
          <dt>Diff</dt>
          <dd>
            {fix.diffStat.files} {fix.diffStat.files === 1 ? 'file' : 'files'} <span className="diff-add">+{fix.diffStat.additions}</span>{' '}
            <span className="diff-del">−{fix.diffStat.deletions}</span>
          </dd>
        </div>
      </dl>
    </div>
  );
}
