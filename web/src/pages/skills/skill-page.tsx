import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useMemo } from 'react';
import { useServices } from '../../app/context';
import { PageTitle, PanelError } from '../../components/ui';
import { renderMarkdown } from '../../lib/markdown';
import { skillRoute } from '../../app/router';
import { type CatalogSkillDetail, SOURCE_LABELS, pipelinesText, skillPath } from './skills-types';

/**
 * One skill: what it is for, where it comes from, its files and its instructions. The body is
 * Markdown from a repository or a folder, so it is rendered by the app's own renderer, which builds
 * elements and never HTML: markup in it shows as text.
 */
export function SkillPage() {
  const { api } = useServices();
  const { name } = skillRoute.useParams();
  const search = skillRoute.useSearch();
  const path = skillPath(name, search);
  const skill = useQuery({ queryKey: ['catalog', 'skill', path], queryFn: ({ signal }) => api.get<CatalogSkillDetail>(path, { signal }) });
  const body = useMemo(() => (skill.data ? renderMarkdown(skill.data.body) : null), [skill.data]);
  return (
    <section>
      <p className="mb-2 text-sm"><Link to="/skills" className="text-blue-800 underline dark:text-blue-300">All skills</Link></p>
      <PageTitle>{name}</PageTitle>
      {skill.isPending ? <p role="status">Loading the skill…</p> : null}
      {skill.isError ? <PanelError what="the skill" error={skill.error} retry={() => void skill.refetch()} /> : null}
      {skill.data ? (
        <>
          <p className="mb-4 max-w-3xl">{skill.data.description}</p>
          <dl className="mb-6 grid max-w-3xl grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
            <dt className="font-medium">Source</dt><dd>{SOURCE_LABELS[skill.data.source]}</dd>
            {skill.data.repository ? <><dt className="font-medium">Repository</dt><dd>{skill.data.repository}{skill.data.project ? ` (project ${skill.data.project})` : ''}</dd></> : null}
            <dt className="font-medium">Pipelines</dt><dd>{pipelinesText(skill.data.pipelines)}</dd>
          </dl>
          <h2 className="mb-2 text-lg font-semibold">Files</h2>
          {skill.data.files.length === 0 ? <p className="mb-6 text-sm">Only <code>SKILL.md</code>.</p> : (
            <ul aria-label="Files" className="mb-6 list-disc pl-6 font-mono text-sm">
              {skill.data.files.map((f) => <li key={f}>{f}</li>)}
            </ul>
          )}
          <h2 className="mb-2 text-lg font-semibold">Instructions</h2>
          <article aria-label="Instructions" className="max-w-3xl rounded border border-slate-200 bg-white p-4 text-sm dark:border-slate-800 dark:bg-slate-900">
            {body}
          </article>
        </>
      ) : null}
    </section>
  );
}
