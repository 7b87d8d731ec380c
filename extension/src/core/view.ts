// What the panel and the status bar show, from the branch's state: plain data
// the vscode glue turns into TreeItems. No 'vscode' import.
import type { BranchState } from '../../../common/branch-state';

export interface ViewNode {
  id: string;
  label: string;
  description?: string;
  tooltip?: string;
  /** a codicon name */
  icon?: string;
  /** a command id to run on click, with its arguments */
  command?: { id: string; title: string; args?: unknown[] };
  children?: ViewNode[];
  /** fixReady: the node offers preview / apply / reject inline */
  contextValue?: string;
}

export interface ViewModel {
  nodes: ViewNode[];
  status: { text: string; tooltip: string };
}

export type PanelInput =
  | { kind: 'signed_out' }
  | { kind: 'loading'; branch?: string }
  | { kind: 'no_repository'; reason: string }
  | { kind: 'error'; message: string; link?: string }
  | { kind: 'state'; state: BranchState; localHead: string | null };

const humanise = (s: string) => s.replace(/_/g, ' ').toLowerCase();

/** The run's state in a few words: queued / running with the time left / fixed / no fix with its category. */
export function runLine(state: BranchState): string {
  const change = state.change;
  if (!change) return 'no failing change';
  const run = change.run;
  if (!run) return `${change.failingTestCount} failing test(s), no repair yet`;
  switch (run.status) {
    case 'QUEUED':
      return `queued${run.timeLeft ? `, ${run.timeLeft}` : ''}`;
    case 'RUNNING':
      return `running${run.phase ? ` (${run.phase})` : ''}${run.timeLeft ? `, ${run.timeLeft}` : ''}`;
    case 'FIXED':
      return change.fix?.status === 'READY' ? 'fixed, fix ready' : `fixed${change.fix ? `, fix ${humanise(change.fix.status)}` : ''}`;
    case 'NO_FIX':
    case 'FAILED':
      return `no fix: ${humanise(run.noFixCategory ?? run.exitReason ?? 'unknown')}`;
    case 'CANCELLED':
      return 'cancelled';
  }
}

export function buildView(input: PanelInput): ViewModel {
  switch (input.kind) {
    case 'signed_out':
      return { nodes: [], status: { text: '$(sign-in) flowfix: sign in', tooltip: 'flowfix: sign in with a personal token made for the editor' } };
    case 'loading':
      return {
        nodes: [{ id: 'loading', label: 'Loading…', icon: 'loading~spin' }],
        status: { text: '$(sync~spin) flowfix', tooltip: `flowfix: looking up ${input.branch ?? 'the branch'}` },
      };
    case 'no_repository':
      return { nodes: [{ id: 'no-repo', label: input.reason, icon: 'info' }], status: { text: '$(circle-slash) flowfix', tooltip: input.reason } };
    case 'error':
      return {
        nodes: [
          {
            id: 'error',
            label: input.message,
            tooltip: input.message,
            icon: 'error',
            ...(input.link ? { command: { id: 'vscode.open', title: 'Open', args: [input.link] } } : {}),
          },
        ],
        status: { text: '$(error) flowfix', tooltip: input.message },
      };
    case 'state':
      return stateView(input.state, input.localHead);
  }
}

function stateView(state: BranchState, localHead: string | null): ViewModel {
  const change = state.change;
  if (!change) {
    const line = `No failing change for ${state.branch} in ${state.repository.name}`;
    return { nodes: [{ id: 'no-change', label: line, icon: 'pass' }], status: { text: '$(pass) flowfix', tooltip: line } };
  }
  const nodes: ViewNode[] = [];
  const line = runLine(state);
  nodes.push({
    id: 'change',
    label: `${change.externalId}: ${change.title}`,
    description: state.branch,
    tooltip: `${state.repository.name} · ${change.externalId} · ${change.status.toLowerCase()}`,
    icon: 'git-pull-request',
    command: { id: 'vscode.open', title: 'Open on the dashboard', args: [change.dashboardUrl] },
  });
  const run = change.run;
  const runIcon = !run ? 'circle-outline' : run.status === 'FIXED' ? 'pass-filled' : run.status === 'QUEUED' || run.status === 'RUNNING' ? 'sync~spin' : 'circle-slash';
  nodes.push({ id: 'run', label: line, icon: runIcon, tooltip: run?.exitDetail ?? line });
  const fix = change.fix;
  if (fix && run?.status === 'FIXED' && fix.runId === run.id) {
    const stale = fix.status === 'STALE' || (localHead !== null && !fix.headRev.startsWith(localHead) && !localHead.startsWith(fix.headRev));
    nodes.push({ id: 'root-cause', label: fix.rootCause || '(no root cause given)', tooltip: fix.rootCause, icon: 'lightbulb' });
    nodes.push({
      id: 'fix',
      label: stale ? 'Fix (stale: the branch moved)' : `Fix: ${fix.status.toLowerCase()}`,
      description: `${fix.files.length} file(s)`,
      icon: stale ? 'warning' : 'wrench',
      contextValue: fix.status === 'READY' && !stale ? 'fixReady' : 'fix',
      children: fix.files.map((f) => ({ id: `fix-file:${f}`, label: f, icon: 'file', command: { id: 'flowfix.preview', title: 'Preview', args: [f] } })),
    });
  }
  nodes.push({
    id: 'failures',
    label: `Failing tests (${change.failingTestCount})`,
    icon: 'testing-failed-icon',
    children: change.failures.map((f) => ({
      id: `failure:${f.testId}`,
      label: f.testName,
      description: f.file ? `${f.file}${f.line ? `:${f.line}` : ''}` : undefined,
      tooltip: f.message,
      icon: 'error',
    })),
  });
  const statusIcon = run?.status === 'FIXED' && fix?.status === 'READY' ? '$(wrench)' : run?.status === 'RUNNING' || run?.status === 'QUEUED' ? '$(sync~spin)' : '$(beaker)';
  return { nodes, status: { text: `${statusIcon} flowfix: ${line}`, tooltip: `${change.externalId}: ${change.title}\n${line}${fix?.rootCause ? `\n${fix.rootCause}` : ''}` } };
}
