import { Link } from "~/components/ui/link";

const messages: Record<number, { title: string; text: string }> = {
  400: { title: "Something in the request was not right", text: "Please go back and try again." },
  403: { title: "This page is not available to you", text: "If you think it should be, please sign in or call the office." },
  404: {
    title: "We could not find that page",
    text: "The page may have moved. Try one of the links below, or call the office and we will help.",
  },
  405: { title: "That is not allowed here", text: "Please go back and try again." },
};

/** The one friendly error page for every status (shared by every ErrorBoundary). Never a stack trace. */
export function ErrorPage({ status }: { status: number }) {
  const m = messages[status] ?? {
    title: "Something went wrong",
    text: "Sorry, we could not show this page. Please try again in a moment, or call the office.",
  };
  return (
    <div className="container page error-page">
      <p className="eyebrow">Error {status}</p>
      <h1>{m.title}</h1>
      <p>{m.text}</p>
      <ul className="error-links">
        <li>
          <Link to="/">Home</Link>
        </li>
        <li>
          <Link to="/view-locations">Our locations</Link>
        </li>
        <li>
          <Link to="/size-guide">Size guide</Link>
        </li>
        <li>
          <Link to="/contact">Contact us</Link>
        </li>
      </ul>
    </div>
  );
}
