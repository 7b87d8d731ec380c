// A small glob matcher for workspace-relative posix paths: `**` spans folders,
// `*` and `?` stay inside one. Enough for report paths and test-file patterns.

import { escapeRegExp } from '../../common/text';

export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      re += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += escapeRegExp(c);
  }
  return new RegExp(`^${re}$`);
}

/** A predicate that is true when a path matches any of the patterns. */
export function matcher(patterns: string[]): (file: string) => boolean {
  const res = patterns.map(globToRegExp);
  return (file) => res.some((re) => re.test(file));
}
