import { PageTitle } from '../components/ui';

export function IdentityPage() {
  return (
    <section>
      <PageTitle>Identity</PageTitle>
    </section>
  );
}
