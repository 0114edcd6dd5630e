import { PageTitle } from '../../components/ui';

export function RunPage() {
  return (
    <section>
      <PageTitle>Run</PageTitle>
    </section>
  );
}
