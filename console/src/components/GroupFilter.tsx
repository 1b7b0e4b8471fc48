/**
 * The group filter of a job list: an exact group id (the lists are indexed by group), applied
 * when typed and paused on, or at once with Enter; empty shows every group.
 */
import { useEffect, useState } from 'preact/hooks';

export function GroupFilter(props: {
  group: string | null;
  onFilter: (group: string | null) => void;
}) {
  const { group, onFilter } = props;
  const [typed, setTyped] = useState(group ?? '');
  // The address changed (a link, back): show what it filters by.
  useEffect(() => setTyped(group ?? ''), [group]);
  const apply = (text: string) => {
    const next = text === '' ? null : text;
    if (next !== group) onFilter(next);
  };
  useEffect(() => {
    const timer = setTimeout(() => apply(typed), 400);
    return () => clearTimeout(timer);
  }, [typed]);
  return (
    <form
      class="group-filter"
      onSubmit={(event) => {
        event.preventDefault();
        apply(typed);
      }}
    >
      <input
        class="search"
        type="search"
        placeholder="Filter by group (exact id)"
        aria-label="Filter by group"
        value={typed}
        onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
        data-testid="group-filter"
      />
    </form>
  );
}
