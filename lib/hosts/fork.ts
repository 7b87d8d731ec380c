import 'server-only';
import { publicOrigin } from '../env';

// A pull (merge) request whose branch lives in a fork is written only when
// its author lets the base repository's maintainers push there (GitHub
// "Allow edits by maintainers", maintainer_can_modify; GitLab "Allow commits
// from members who can merge to the target branch", allow_collaboration).
// Otherwise flowfix cannot apply the fix, and says so in one wording: the
// refusal of an apply (409, from any surface) and the change's comment both
// say how to apply it by hand.

export type HostKindLabel = 'GITHUB' | 'GITLAB';

const PERMISSION: Record<HostKindLabel, { refused: string; setting: string; thread: string }> = {
  GITHUB: { refused: 'does not allow maintainers to edit it', setting: 'allow edits by maintainers', thread: 'pull request' },
  GITLAB: {
    refused: 'does not allow commits from members who can merge',
    setting: 'allow commits from members who can merge to the target branch',
    thread: 'merge request',
  },
};

export function patchUrl(fixId: string): string {
  return `${publicOrigin()}/api/fixes/${encodeURIComponent(fixId)}/patch`;
}

/** The refusal of an apply to a fork flowfix may not push to (plain text: an API error and a reply in the thread). */
export function forkRefusalMessage({ kind, fork, branch, fixId }: { kind: HostKindLabel; fork: string; branch?: string; fixId?: string }): string {
  const p = PERMISSION[kind];
  const patch = fixId ? ` (flowfix users: ${patchUrl(fixId)})` : '';
  return (
    `The ${p.thread} comes from the fork ${fork}, whose author ${p.refused}: flowfix cannot push there. ` +
    `Apply it by hand: take the diff from flowfix's comment on the ${p.thread}, or download the patch${patch}, and \`git apply\` it on ${branch ? `\`${branch}\`` : 'the branch'} in the fork; ` +
    `or ask the author to ${p.setting}, then apply again.`
  );
}

/** The same, for the change's comment (markdown, above the diff it points to). */
export function forkHandApplyMarkdown({ kind, fork, branch, fixId }: { kind: HostKindLabel; fork: string; branch: string; fixId: string }): string {
  const p = PERMISSION[kind];
  return (
    `**Apply it by hand.** flowfix cannot push this fix: the branch \`${branch}\` lives in the fork ${fork}, whose author ${p.refused}. ` +
    `Save the diff below as \`flowfix.patch\` (or [download the patch](${patchUrl(fixId)}) from flowfix), run \`git apply flowfix.patch\` on \`${branch}\` in the fork, then commit and push; ` +
    `or ask the author to ${p.setting}, then \`/flowfix apply\`.`
  );
}
