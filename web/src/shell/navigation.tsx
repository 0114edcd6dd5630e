import { Link } from '@tanstack/react-router';
import { usePermission } from '../app/identity';

/** The pages of the contract's navigation that exist, each shown only to a caller who may open it. */
export const NAV_PAGES: { to: string; label: string; permission: string | null; also?: string }[] = [
  { to: '/runs', label: 'Runs', permission: 'runs.read' },
  { to: '/pull-requests', label: 'Pull requests', permission: 'runs.read' },
  { to: '/statistics', label: 'Statistics', permission: 'runs.read' },
  { to: '/findings', label: 'Findings', permission: null },
  { to: '/identity', label: 'Identity', permission: null },
  { to: '/access', label: 'Access', permission: 'access.read' },
  { to: '/config', label: 'Configuration', permission: 'config.read' },
  { to: '/secrets', label: 'Secrets', permission: 'secrets.read' },
  { to: '/changes', label: 'Changes', permission: 'config.read', also: 'secrets.read' },
  { to: '/projects', label: 'Projects', permission: 'config.read' },
  { to: '/diagnostics', label: 'Diagnostics', permission: 'diagnostics.read' },
  { to: '/skills', label: 'Skills', permission: 'catalog.read' },
  { to: '/dialog', label: 'Design', permission: 'dialog.write' },
];

function NavLink({ to, label, permission, also }: (typeof NAV_PAGES)[number]) {
  const allowed = usePermission(permission ?? 'identity.read');
  // A page whose reads need two permissions together (Changes: config.read + secrets.read).
  const alsoAllowed = usePermission(also ?? permission ?? 'identity.read');
  if (permission && !(allowed && alsoAllowed)) return null;
  return (
    <li>
      <Link
        to={to}
        className="block rounded px-3 py-1.5 text-sm hover:bg-slate-200 dark:hover:bg-slate-800"
        activeProps={{ className: 'bg-slate-200 font-semibold dark:bg-slate-800', 'aria-current': 'page' }}
      >
        {label}
      </Link>
    </li>
  );
}

export function Navigation() {
  return (
    <nav aria-label="Main">
      <ul className="flex flex-wrap gap-1 md:flex-col">
        {NAV_PAGES.map((page) => <NavLink key={page.to} {...page} />)}
      </ul>
    </nav>
  );
}
