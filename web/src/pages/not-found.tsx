import { Link } from '@tanstack/react-router';
import { PageTitle } from '../components/ui';

export function NotFoundPage() {
  return (
    <section>
      <PageTitle>Page not found</PageTitle>
      <p>There is no page at this address. <Link to="/runs" className="underline">Go to the runs</Link>.</p>
    </section>
  );
}
