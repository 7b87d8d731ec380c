// The colour theme: the person's choice (System, Light or Dark) is kept in
// localStorage; the theme in force is <html data-theme="light|dark">, which the
// design tokens of app/globals.css follow. Shared by the root layout (which
// inlines THEME_SCRIPT), the providers and the header's toggle, so no
// server-only imports.

export const THEME_CHOICES = ['system', 'light', 'dark'] as const;
export type ThemeChoice = (typeof THEME_CHOICES)[number];
export type Theme = 'light' | 'dark';

export const THEME_STORAGE_KEY = 'flowfix-theme';
/** Dispatched on window when this tab changes the choice (the storage event only reaches other tabs). */
export const THEME_CHANGE_EVENT = 'flowfix-theme-change';

/**
 * Runs in <head> before the body is parsed, so the first paint already has
 * the right theme (no flash of the light one). It is the one place that
 * resolves a choice into a theme: at load, when the operating system's
 * preference changes (for System), when another tab changes the choice, and
 * when the toggle announces a change in this tab. localStorage can throw
 * (storage disabled): then the choice is System.
 */
export const THEME_SCRIPT = `(function () {
  var root = document.documentElement;
  var media = window.matchMedia('(prefers-color-scheme: dark)');
  function choice() {
    try {
      var stored = window.localStorage.getItem(${JSON.stringify(THEME_STORAGE_KEY)});
      return stored === 'light' || stored === 'dark' ? stored : 'system';
    } catch (e) {
      return 'system';
    }
  }
  function apply() {
    var c = choice();
    root.setAttribute('data-theme', c === 'system' ? (media.matches ? 'dark' : 'light') : c);
  }
  apply();
  media.addEventListener('change', apply);
  window.addEventListener('storage', function (e) {
    if (e.key === null || e.key === ${JSON.stringify(THEME_STORAGE_KEY)}) apply();
  });
  window.addEventListener(${JSON.stringify(THEME_CHANGE_EVENT)}, apply);
})();`;

/**
 * A page Next renders in the browser alone (the 403 of forbidden(), an error
 * page) gets the root layout from React, which never runs the inline script
 * it holds, and which clears the attributes of <html> when it takes the
 * element over. So the providers call this as their bundle loads and again
 * once React has drawn, before the paint: if <html> has no data-theme, the
 * script is asked to apply the theme again (if it ran) or started as a
 * script element of its own, with the nonce the page's other scripts carry
 * (the CSP admits nothing else). Where <html> has its theme, it does nothing.
 */
export function ensureTheme(): void {
  const root = document.documentElement;
  if (root.hasAttribute('data-theme')) return;
  window.dispatchEvent(new Event(THEME_CHANGE_EVENT));
  if (root.hasAttribute('data-theme')) return;
  const script = document.createElement('script');
  const nonced = Array.from(document.scripts).find((s) => s.nonce);
  if (nonced) script.nonce = nonced.nonce;
  script.textContent = THEME_SCRIPT;
  document.head.appendChild(script);
}
