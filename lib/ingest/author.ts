// Changes written by bots (dependency updaters, formatters, release tools)
// are filtered differently from people's, so the kind matters. CI systems
// rarely say; the name usually does.

const BOT_NAMES = [
  /\[bot\]$/i, // GitHub Apps: dependabot[bot], github-actions[bot], renovate[bot]
  /^(dependabot|renovate|renovate-bot|greenkeeper|snyk-bot|mergify|pre-commit-ci|imgbot|allcontributors|copybara|semantic-release-bot|depfu|pyup-bot|whitesource|mend-bolt)\b/i,
  /(^|[-_.])bot$/i, // release-bot, ci_bot
  /^(project|group)_\d+_bot(_[0-9a-f]+)?$/i, // GitLab project and group access tokens' users
];

const BOT_EMAILS = [/\[bot\]@/i, /^(noreply|no-reply)\+?.*@.*bot/i, /@renovateapp\.com$/i, /^bot[-_.@]/i];

export function inferAuthorKind({ author, authorEmail, declared }: { author: string; authorEmail?: string; declared?: 'human' | 'bot' }): 'HUMAN' | 'BOT' {
  // an explicit answer from the CI system wins over our guess
  if (declared) return declared === 'bot' ? 'BOT' : 'HUMAN';
  const name = author.trim();
  if (BOT_NAMES.some((re) => re.test(name))) return 'BOT';
  if (authorEmail && BOT_EMAILS.some((re) => re.test(authorEmail.trim()))) return 'BOT';
  return 'HUMAN';
}
