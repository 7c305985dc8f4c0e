import { useId, type FormEvent } from 'react';

/** A search box that submits on Enter or its button; the page keeps the query in the address. */
export function SearchForm({
  label,
  value,
  placeholder,
  onSearch,
}: {
  label: string;
  value: string | undefined;
  placeholder?: string;
  onSearch: (query: string | undefined) => void;
}) {
  const id = useId();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const query = String(new FormData(event.currentTarget).get('q') ?? '').trim();
    onSearch(query || undefined);
  };
  return (
    <form className="toolbar" role="search" onSubmit={submit}>
      <label htmlFor={id}>{label}</label>
      <input id={id} name="q" type="search" defaultValue={value ?? ''} key={value ?? ''} placeholder={placeholder} />
      <button type="submit">Search</button>
      {value && (
        <button type="button" onClick={() => onSearch(undefined)}>
          Clear
        </button>
      )}
    </form>
  );
}
