import { test } from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';
import { THEME_CHANGE_EVENT, THEME_SCRIPT, THEME_STORAGE_KEY } from '../../../components/shell/theme';

// The inline script of the root layout, run as the browser runs it (a plain
// script, nothing imported) against a stand-in for the page: it alone turns
// the stored choice and the system's preference into <html data-theme>.

function page({ stored, prefersDark = false, storageThrows = false }: { stored?: string; prefersDark?: boolean; storageThrows?: boolean }) {
  const attributes = new Map<string, string>();
  const listeners = new Map<string, Array<(e: { key: string | null }) => void>>();
  let mediaListener: (() => void) | undefined;
  const media = {
    matches: prefersDark,
    addEventListener: (type: string, fn: () => void) => {
      assert.equal(type, 'change');
      mediaListener = fn;
    },
  };
  const store = new Map<string, string>(stored === undefined ? [] : [[THEME_STORAGE_KEY, stored]]);
  const localStorage = {
    getItem(key: string) {
      if (storageThrows) throw new Error('SecurityError: storage is disabled');
      return store.get(key) ?? null;
    },
  };
  const window = {
    matchMedia: (query: string) => {
      assert.equal(query, '(prefers-color-scheme: dark)');
      return media;
    },
    localStorage,
    addEventListener: (type: string, fn: (e: { key: string | null }) => void) => listeners.set(type, [...(listeners.get(type) ?? []), fn]),
  };
  const document = { documentElement: { setAttribute: (name: string, value: string) => attributes.set(name, value) } };
  vm.runInNewContext(THEME_SCRIPT, { window, document });
  return {
    theme: () => attributes.get('data-theme'),
    store,
    systemTurns(dark: boolean) {
      media.matches = dark;
      mediaListener?.();
    },
    fire(type: string, key: string | null = null) {
      for (const fn of listeners.get(type) ?? []) fn({ key });
    },
  };
}

test('with no stored choice the theme follows the system', () => {
  assert.equal(page({}).theme(), 'light');
  assert.equal(page({ prefersDark: true }).theme(), 'dark');
});

test('a stored choice wins over the system, and nonsense counts as System', () => {
  assert.equal(page({ stored: 'light', prefersDark: true }).theme(), 'light');
  assert.equal(page({ stored: 'dark' }).theme(), 'dark');
  assert.equal(page({ stored: 'purple', prefersDark: true }).theme(), 'dark');
});

test('storage that throws leaves the system preference in force', () => {
  assert.equal(page({ storageThrows: true, prefersDark: true }).theme(), 'dark');
});

test('System follows the system as it changes; a stored choice does not', () => {
  const system = page({});
  system.systemTurns(true);
  assert.equal(system.theme(), 'dark');
  system.systemTurns(false);
  assert.equal(system.theme(), 'light');

  const chosen = page({ stored: 'light' });
  chosen.systemTurns(true);
  assert.equal(chosen.theme(), 'light');
});

test('a change made by the toggle in this tab or by another tab is applied', () => {
  const p = page({});
  p.store.set(THEME_STORAGE_KEY, 'dark');
  p.fire(THEME_CHANGE_EVENT);
  assert.equal(p.theme(), 'dark');
  p.store.delete(THEME_STORAGE_KEY);
  p.fire('storage', 'some-other-key');
  assert.equal(p.theme(), 'dark', 'another key leaves the theme alone');
  p.fire('storage', THEME_STORAGE_KEY);
  assert.equal(p.theme(), 'light');
});
