import { HtmlContent } from "../ui/html-content";

/** A plain content page: heading, optional lead, sanitised operator HTML. */
export function ContentPage({ title, lead, html, children }: { title: string; lead?: string; html?: string; children?: React.ReactNode }) {
  return (
    <div className="container page page--narrow">
      <h1>{title}</h1>
      {lead ? <p className="lead">{lead}</p> : null}
      {html ? <HtmlContent html={html} /> : null}
      {children}
    </div>
  );
}
