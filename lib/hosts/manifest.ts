import 'server-only';
import { publicOrigin } from '../env';

// The GitHub App manifest (https://docs.github.com/apps/sharing-github-apps/registering-a-github-app-from-a-manifest):
// exactly the permissions flowfix uses, and the events it acts on.
//   checks: write         the "flowfix" check run on the head commit
//   contents: write       the fix commit pushed to the pull request's branch
//   pull_requests: write  the one comment per change, and its comment commands
//   actions: read         the workflow run's JUnit artifacts and failed jobs' logs
//   metadata: read        mandatory for every App

export const GITHUB_APP_PERMISSIONS = {
  checks: 'write',
  contents: 'write',
  pull_requests: 'write',
  actions: 'read',
  metadata: 'read',
} as const;

export const GITHUB_APP_EVENTS = ['check_suite', 'workflow_run', 'pull_request', 'issue_comment'] as const;

export function githubAppManifest({ origin = publicOrigin() }: { origin?: string } = {}) {
  return {
    name: 'flowfix',
    url: origin,
    hook_attributes: { url: `${origin}/api/hosts/github/webhook`, active: true },
    redirect_url: `${origin}/admin?tab=hosts`,
    public: false,
    default_permissions: { ...GITHUB_APP_PERMISSIONS },
    default_events: [...GITHUB_APP_EVENTS],
  };
}
