import type { QueryClient } from '@tanstack/react-query';
import { createRootRouteWithContext, createRoute, createRouter, lazyRouteComponent, notFound, redirect } from '@tanstack/react-router';
import { parsePullRequestsSearch, parseStatisticsSearch } from '../lib/page-search';
import { parseRunsFilter } from '../lib/runs-filter';
import { NotFoundPage } from '../pages/not-found';
import { isAccessPane, parseAccessSearch, parsePagedSearch } from '../pages/admin/admin-search';
import { parseDialogSearch } from '../pages/dialog/dialog-types';
import { RunsPage } from '../pages/runs/runs-page';
import { parseSkillSearch } from '../pages/skills/skills-types';
import { Shell } from '../shell/shell';

export interface RouterContext {
  queryClient: QueryClient;
}

const root = createRootRouteWithContext<RouterContext>()({ component: Shell, notFoundComponent: NotFoundPage });

const index = createRoute({ getParentRoute: () => root, path: '/', beforeLoad: () => { throw redirect({ to: '/runs' }); } });
export const runsRoute = createRoute({ getParentRoute: () => root, path: '/runs', validateSearch: parseRunsFilter, component: RunsPage });
export const runRoute = createRoute({
  getParentRoute: () => root,
  path: '/runs/$runId',
  validateSearch: (search: Record<string, unknown>) => parseRunSearch(search),
  component: lazyRouteComponent(() => import('../pages/run/run-page'), 'RunPage'),
});
export const pullRequestsRoute = createRoute({
  getParentRoute: () => root,
  path: '/pull-requests',
  validateSearch: parsePullRequestsSearch,
  component: lazyRouteComponent(() => import('../pages/pull-requests/pull-requests-page'), 'PullRequestsPage'),
});
export const statisticsRoute = createRoute({
  getParentRoute: () => root,
  path: '/statistics',
  validateSearch: parseStatisticsSearch,
  component: lazyRouteComponent(() => import('../pages/statistics/statistics-page'), 'StatisticsPage'),
});
const findings = createRoute({ getParentRoute: () => root, path: '/findings', component: lazyRouteComponent(() => import('../pages/findings/findings-page'), 'FindingsPage') });
const identity = createRoute({ getParentRoute: () => root, path: '/identity', component: lazyRouteComponent(() => import('../pages/identity/identity-page'), 'IdentityPage') });

// The admin pages (issue 26): lazy chunks under pages/admin; the Access panes are URL state.
const accessIndex = createRoute({ getParentRoute: () => root, path: '/access', beforeLoad: () => { throw redirect({ to: '/access/$pane', params: { pane: 'people' } }); } });
export const accessRoute = createRoute({
  getParentRoute: () => root,
  path: '/access/$pane',
  beforeLoad: ({ params }) => { if (!isAccessPane(params.pane)) throw notFound(); },
  validateSearch: parseAccessSearch,
  component: lazyRouteComponent(() => import('../pages/admin/access/access-page'), 'AccessPage'),
});
const configPage = createRoute({ getParentRoute: () => root, path: '/config', component: lazyRouteComponent(() => import('../pages/admin/config-page'), 'ConfigPage') });
const secretsPage = createRoute({ getParentRoute: () => root, path: '/secrets', component: lazyRouteComponent(() => import('../pages/admin/secrets-page'), 'SecretsPage') });
export const changesRoute = createRoute({
  getParentRoute: () => root,
  path: '/changes',
  validateSearch: parsePagedSearch,
  component: lazyRouteComponent(() => import('../pages/admin/changes/changes-page'), 'ChangesPage'),
});
const ADMIN_ROUTES = [accessIndex, accessRoute, configPage, secretsPage, changesRoute];
const projects = createRoute({ getParentRoute: () => root, path: '/projects', component: lazyRouteComponent(() => import('../pages/projects/projects-page'), 'ProjectsPage') });
const addProject = createRoute({ getParentRoute: () => root, path: '/projects/new', component: lazyRouteComponent(() => import('../pages/projects/add-project-page'), 'AddProjectPage') });
export const dialogRoute = createRoute({
  getParentRoute: () => root,
  path: '/dialog',
  validateSearch: parseDialogSearch,
  component: lazyRouteComponent(() => import('../pages/dialog/dialog-page'), 'DialogPage'),
});
const skills = createRoute({ getParentRoute: () => root, path: '/skills', component: lazyRouteComponent(() => import('../pages/skills/skills-page'), 'SkillsPage') });
export const skillRoute = createRoute({
  getParentRoute: () => root,
  path: '/skills/$name',
  validateSearch: parseSkillSearch,
  component: lazyRouteComponent(() => import('../pages/skills/skill-page'), 'SkillPage'),
});
const diagnostics = createRoute({ getParentRoute: () => root, path: '/diagnostics', component: lazyRouteComponent(() => import('../pages/diagnostics/diagnostics-page'), 'DiagnosticsPage') });

/** The run page's URL state: the log's filters and the line a link points at. */
export interface RunSearch {
  sandbox?: string;
  kind?: string;
  q?: string;
  line?: number;
  drawer?: boolean;
}

export function parseRunSearch(search: Record<string, unknown>): RunSearch {
  const out: RunSearch = {};
  for (const key of ['sandbox', 'kind', 'q'] as const) {
    const value = search[key];
    if (typeof value === 'string' && value !== '') out[key] = value.slice(0, 200);
  }
  const line = Number(search['line']);
  if (Number.isInteger(line) && line > 0) out.line = line;
  if (search['drawer'] === true || search['drawer'] === 'true') out.drawer = true;
  return out;
}

export function createAppRouter(queryClient: QueryClient) {
  const tree = root.addChildren([index, runsRoute, runRoute, pullRequestsRoute, statisticsRoute, findings, identity, ...ADMIN_ROUTES, projects, addProject, diagnostics, skills, skillRoute, dialogRoute]);
  return createRouter({ routeTree: tree, context: { queryClient }, defaultPreload: 'intent', scrollRestoration: true });
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof createAppRouter>;
  }
}
