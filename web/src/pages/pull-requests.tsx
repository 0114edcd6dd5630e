import { PageTitle } from '../components/ui';

export function PullRequestsPage() {
  return (
    <section>
      <PageTitle>Pull requests</PageTitle>
    </section>
  );
}
