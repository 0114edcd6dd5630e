import { PageTitle } from '../components/ui';

export function StatisticsPage() {
  return (
    <section>
      <PageTitle>Statistics</PageTitle>
    </section>
  );
}
