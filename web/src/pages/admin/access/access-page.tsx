import { useNavigate } from '@tanstack/react-router';
import { Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import { ApiError } from '../../../api/client';
import { accessRoute } from '../../../app/router';
import { PageTitle, PanelError } from '../../../components/ui';
import { ACCESS_PANES, type AccessPane } from '../admin-search';
import { AppliesNextRequest, MUTED } from '../admin-ui';
import { PRESSABLE_TOUCH } from '../csp-safe-press';
import { ClaimsPane } from './claims-pane';
import { GroupsPane } from './groups-pane';
import { PeoplePane } from './people-pane';
import { RolesPane } from './roles-pane';
import { useAccessOverview } from './use-access';

const LABELS: Record<AccessPane, string> = { people: 'People', groups: 'Groups', roles: 'Roles', claims: 'Claim names' };

/** The Access surface: four panes over one access document, the pane in the URL (/access/<pane>). */
export function AccessPage() {
  const { pane } = accessRoute.useParams();
  const navigate = useNavigate();
  const overview = useAccessOverview();
  const counts = overview.data?.counts;
  if (overview.error instanceof ApiError && overview.error.status === 403) {
    // A direct link without access.read: the one panel naming what is missing, no empty panes.
    return (
      <section>
        <PageTitle>Access</PageTitle>
        <PanelError what="the Access surface" error={overview.error} />
      </section>
    );
  }
  return (
    <section className="space-y-3">
      <PageTitle>Access</PageTitle>
      <AppliesNextRequest />
      {overview.isError ? <PanelError what="the access overview" error={overview.error} retry={() => void overview.refetch()} /> : null}
      {counts ? (
        <p className={`text-sm ${MUTED}`}>
          {counts.people} {counts.people === 1 ? 'person' : 'people'} ({counts.notSignedInYet} not signed in yet), {counts.groups} group{counts.groups === 1 ? '' : 's'} ({counts.mappedGroups} mapped),
          {' '}{counts.customRoles} custom role{counts.customRoles === 1 ? '' : 's'}; people are remembered for {overview.data!.observationWindowDays} days after they were last seen.
        </p>
      ) : null}
      <Tabs selectedKey={pane} onSelectionChange={(key) => void navigate({ to: '/access/$pane', params: { pane: String(key) } })}>
        <TabList aria-label="Access panes" className="mb-4 flex flex-wrap gap-1 border-b border-slate-200 dark:border-slate-800">
          {ACCESS_PANES.map((p) => (
            <Tab
              key={p}
              id={p}
              className={`${PRESSABLE_TOUCH} -mb-px cursor-pointer rounded-t border-b-2 border-transparent px-3 py-1.5 text-sm outline-none hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-blue-600 aria-selected:border-blue-700 aria-selected:font-semibold dark:hover:bg-slate-800 dark:aria-selected:border-blue-400`}
            >
              {LABELS[p]}
            </Tab>
          ))}
        </TabList>
        <TabPanel id="people" className="outline-none"><PeoplePane /></TabPanel>
        <TabPanel id="groups" className="outline-none"><GroupsPane /></TabPanel>
        <TabPanel id="roles" className="outline-none"><RolesPane /></TabPanel>
        <TabPanel id="claims" className="outline-none"><ClaimsPane /></TabPanel>
      </Tabs>
    </section>
  );
}
