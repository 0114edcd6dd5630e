import { lazy, Suspense, useEffect, useState } from 'react';

/** The dialog (react-aria) is fetched the first time someone presses ?. */
const ShortcutsDialog = lazy(() => import('./shortcuts-dialog'));

export const SHORTCUTS: [string, string][] = [
  ['/', 'Focus the search or filter box'],
  ['j / k', 'Next / previous row in a list'],
  ['Enter', 'Open the focused row'],
  ['?', 'Show these shortcuts'],
];

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable);
}

/** Moves focus along the page's rows (elements marked data-row), wrapping at neither end. */
export function moveRow(delta: 1 | -1): void {
  const rows = [...document.querySelectorAll<HTMLElement>('[data-row]')];
  if (rows.length === 0) return;
  const index = rows.indexOf(document.activeElement as HTMLElement);
  const next = rows[Math.min(rows.length - 1, Math.max(0, index === -1 ? 0 : index + delta))];
  next?.focus();
  next?.scrollIntoView({ block: 'nearest' });
}

export function Shortcuts() {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
      if (event.key === '?') {
        setOpen(true);
      } else if (event.key === '/') {
        const search = document.querySelector<HTMLElement>('[data-search]');
        if (search) {
          event.preventDefault();
          search.focus();
        }
      } else if (event.key === 'j' || event.key === 'k') {
        moveRow(event.key === 'j' ? 1 : -1);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  if (!open) return null;
  return (
    <Suspense fallback={null}>
      <ShortcutsDialog onClose={() => setOpen(false)} />
    </Suspense>
  );
}
