import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useServices } from '../../app/context';
import { Button, EmptyState, PageTitle, PanelError } from '../../components/ui';
import { type Catalog, type CatalogSkill, SOURCE_LABELS, pipelinesText } from './skills-types';

const TABLE_BOX = 'overflow-x-auto rounded border border-slate-200 dark:border-slate-800';
const HEAD = 'bg-slate-100 text-left dark:bg-slate-900';
const ROW = 'border-t border-slate-200 align-top hover:bg-slate-100 focus:bg-blue-50 dark:border-slate-800 dark:hover:bg-slate-900 dark:focus:bg-slate-800';

export function SkillsPage() {
  const { api } = useServices();
  const catalog = useQuery({ queryKey: ['catalog'], queryFn: ({ signal }) => api.get<Catalog>('/api/catalog', { signal }) });
  return (
    <section>
      <PageTitle actions={<Button onPress={() => void catalog.refetch()}>Read again</Button>}>Skills</PageTitle>
      <p className="mb-4 max-w-3xl text-sm text-slate-700 dark:text-slate-300">
        Instructions the agent pipelines may load while they work: the service's own, the folders of <code>skills.paths</code>, and each
        repository's <code>.service/skills/</code> on its default branch. A run is offered the skills of its pipeline; a repository's skills
        only to runs of its project, where they win over a skill of the same name.
      </p>
      {catalog.isPending ? <p role="status">Loading the skills…</p> : null}
      {catalog.isError ? <PanelError what="the skills" error={catalog.error} retry={() => void catalog.refetch()} /> : null}
      {catalog.data && catalog.data.skills.length === 0 ? (
        <EmptyState title="No skills.">
          <p>Add a folder with a <code>SKILL.md</code> to <code>.service/skills/</code> in a repository, or to a folder listed in <code>skills.paths</code>.</p>
        </EmptyState>
      ) : null}
      {catalog.data && catalog.data.skills.length > 0 ? <SkillsTable skills={catalog.data.skills} /> : null}
      {catalog.data && catalog.data.findings.length > 0 ? (
        <>
          <h2 className="mt-6 mb-2 text-lg font-semibold">Skills left out</h2>
          <ul aria-label="Skills left out" className="list-disc space-y-1 pl-6 text-sm">
            {catalog.data.findings.map((f, i) => <li key={i}>{f.reason}{f.project ? ` (project ${f.project})` : ''}</li>)}
          </ul>
        </>
      ) : null}
    </section>
  );
}

function SkillsTable({ skills }: { skills: CatalogSkill[] }) {
  return (
    <div className={TABLE_BOX}>
      <table aria-label="Skills" className="w-full border-collapse text-sm">
        <thead className={HEAD}>
          <tr>{['Name', 'Description', 'Source', 'Repository', 'Pipelines'].map((c) => <th key={c} scope="col" className="px-3 py-2 font-semibold">{c}</th>)}</tr>
        </thead>
        <tbody>
          {skills.map((s) => (
            <tr key={`${s.name}-${s.project ?? ''}-${s.repository ?? ''}`} data-row tabIndex={-1} className={ROW}>
              <td className="px-3 py-2 whitespace-nowrap">
                <Link
                  to="/skills/$name"
                  params={{ name: s.name }}
                  search={s.repository ? { project: s.project ?? undefined, repository: s.repository } : {}}
                  className="font-medium text-blue-800 underline dark:text-blue-300"
                >
                  {s.name}
                </Link>
              </td>
              <td className="px-3 py-2">{s.description}</td>
              <td className="px-3 py-2 whitespace-nowrap">{SOURCE_LABELS[s.source]}</td>
              <td className="px-3 py-2">{s.repository ? `${s.repository}${s.project ? ` (${s.project})` : ''}` : '—'}</td>
              <td className="px-3 py-2">{pipelinesText(s.pipelines)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
