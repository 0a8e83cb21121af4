import type { ReactNode } from "react";
import { Form } from "react-router";
import { CsrfInput } from "../ui/form";

/**
 * The console's own layout pieces (issue 23): a plain, accessible page (WCAG 2.2 AA) with its header,
 * navigation and main landmark; no site chrome and no operator code. Route modules under
 * routes/admin.layout.tsx render only their content (an <h1> first); `adminMeta` gives their title.
 */
export function adminMeta(title: string) {
  // (The robots meta, noindex, is drawn by root.tsx for every console page.)
  return [{ title: `${title} | Back office` }];
}

export function ConsoleHeader({ children }: { children?: ReactNode }) {
  return (
    <header className="console-header">
      <p className="console-brand">
        <a href="/admin">Back office</a>
      </p>
      {children}
    </header>
  );
}

interface ConsoleNavProps {
  items: Array<{ href: string; label: string }>;
  current: string;
  name: string;
  roleLabel: string;
  csrfToken: string;
}

/** The navigation: only the links the member's role may open, who is signed in, and sign out (POST). */
export function ConsoleNav({ items, current, name, roleLabel, csrfToken }: ConsoleNavProps) {
  return (
    <>
      <nav aria-label="Back office" className="console-nav">
        <ul>
          {items.map((item) => {
            const here = item.href === "/admin" ? current === "/admin" : current === item.href || current.startsWith(`${item.href}/`);
            return (
              <li key={item.href}>
                <a href={item.href} aria-current={here ? "page" : undefined}>
                  {item.label}
                </a>
              </li>
            );
          })}
        </ul>
      </nav>
      <div className="console-user">
        <p>
          Signed in as <strong>{name}</strong> ({roleLabel})
        </p>
        <Form method="post" action="/admin/sign-out" reloadDocument>
          <CsrfInput token={csrfToken} />
          <button type="submit" className="console-button console-button--quiet">
            Sign out
          </button>
        </Form>
      </div>
    </>
  );
}

/** The main landmark of a console page (the skip link's target). */
export function ConsoleMain({ children, narrow }: { children: ReactNode; narrow?: boolean }) {
  return (
    <main id="main" tabIndex={-1} className={narrow ? "console-main console-main--narrow" : "console-main"}>
      {children}
    </main>
  );
}

/** A text input with its label, hint and error (the error linked by aria-describedby). */
export function TextField(props: {
  name: string;
  label: string;
  type?: string;
  defaultValue?: string;
  error?: string;
  hint?: string;
  autoComplete?: string;
  inputMode?: "numeric" | "text" | "email";
  required?: boolean;
}) {
  const id = `field-${props.name}`;
  const describedBy = [props.hint ? `${id}-hint` : null, props.error ? `${id}-error` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={props.error ? "console-field console-field--invalid" : "console-field"}>
      <label htmlFor={id}>{props.label}</label>
      {props.hint ? (
        <p id={`${id}-hint`} className="console-hint">
          {props.hint}
        </p>
      ) : null}
      <input
        id={id}
        name={props.name}
        type={props.type ?? "text"}
        defaultValue={props.defaultValue}
        autoComplete={props.autoComplete}
        inputMode={props.inputMode}
        required={props.required}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={describedBy}
      />
      {props.error ? (
        <p id={`${id}-error`} className="console-error">
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

/** A message for the whole form (announced). */
export function FormMessage({ message, tone = "error" }: { message?: string | null; tone?: "error" | "success" | "info" }) {
  if (!message) return null;
  return (
    <div className={`console-alert console-alert--${tone}`} role={tone === "error" ? "alert" : "status"}>
      <p>{message}</p>
    </div>
  );
}

export { CsrfInput };
