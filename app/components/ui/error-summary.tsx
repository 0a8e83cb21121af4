/**
 * "There is a problem": the list of a refused form's errors, each a link to its field. It takes focus
 * when the page loads (the `autofocus` attribute works without JavaScript), so keyboard and
 * screen-reader users land on it after a refused submit; each message is also shown beside its field.
 */
export function ErrorSummary({ errors }: { errors: Array<{ fieldId: string; message: string }> }) {
  if (!errors.length) return null;
  return (
    <div className="alert alert--error error-summary" role="alert" tabIndex={-1} autoFocus aria-labelledby="error-summary-title">
      <h2 id="error-summary-title">There is a problem</h2>
      <ul>
        {errors.map((e) => (
          <li key={`${e.fieldId}:${e.message}`}>
            <a href={`#${e.fieldId}`}>{e.message}</a>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The summary's entries from Conform's `allErrors` and the form's fields (in the fields' order). */
export function summaryErrors(allErrors: Record<string, string[] | undefined>, fields: Array<{ id: string; name: string }>) {
  return fields.flatMap((f) => (allErrors[f.name] ?? []).map((message) => ({ fieldId: f.id, message })));
}
