/** Light, dark, or the system's choice (no attribute): the style sheet follows `data-theme` on the root element. */
export type Theme = 'light' | 'dark' | 'system';

const KEY = 'mirobody-console-theme';

export function storedTheme(): Theme {
  const value = localStorage.getItem(KEY);
  return value === 'light' || value === 'dark' ? value : 'system';
}

export function applyTheme(theme: Theme): void {
  if (theme === 'system') {
    localStorage.removeItem(KEY);
    delete document.documentElement.dataset.theme;
  } else {
    localStorage.setItem(KEY, theme);
    document.documentElement.dataset.theme = theme;
  }
}

export function applyStoredTheme(): void {
  applyTheme(storedTheme());
}
