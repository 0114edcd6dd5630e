import { PageTitle } from '../components/ui';

export function FindingsPage() {
  return (
    <section>
      <PageTitle>Findings</PageTitle>
    </section>
  );
}
