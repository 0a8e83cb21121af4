/** Renders HTML that a loader has already passed through `sanitizeOperatorHtml`. */
export function HtmlContent({ html, className }: { html: string; className?: string }) {
  return <div className={className ? `prose ${className}` : "prose"} dangerouslySetInnerHTML={{ __html: html }} />;
}
