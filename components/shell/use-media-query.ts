'use client';

import { useCallback, useSyncExternalStore } from 'react';

// A CSS media query, followed as the window changes. The server renders for
// a wide screen (false); the browser corrects it on hydration.

export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (onChange: () => void) => {
      const media = window.matchMedia(query);
      media.addEventListener('change', onChange);
      return () => media.removeEventListener('change', onChange);
    },
    [query],
  );
  return useSyncExternalStore(
    subscribe,
    () => window.matchMedia(query).matches,
    () => false,
  );
}

/** Below 768 px (a phone, a narrow window): two code columns side by side no longer fit. */
export const NARROW_SCREEN = '(max-width: 767.98px)';
