import type { ReactNode } from "react";
import { useNonce } from "../ui/nonce";
import passkeyScript from "./passkey-enhance.js?raw";
import { CsrfInput } from "../console/shell";

/**
 * The passkey parts of the console's pages (issue 23; docs/decisions/273-passkey-page-script.md).
 * A passkey needs JavaScript: the button is hidden until the inline script (passkey-enhance.js, with
 * the request's CSP nonce) finds WebAuthn in the browser; with JavaScript off the note
 * ([data-passkey-nojs], which the script hides) says what to do instead. The form is an ordinary POST that carries the browser's answer.
 */
function PasskeyScript() {
  const nonce = useNonce();
  return <script nonce={nonce} dangerouslySetInnerHTML={{ __html: passkeyScript }} />;
}

/** "Use a passkey" (sign-in's second step, or a fresh factor): posts `intent=passkey` and `response`. */
export function UsePasskey(props: { optionsJson: string; csrfToken: string; next?: string; held?: { name: string; value: string } | null; heading: string; noScript: string }) {
  return (
    <section className="console-passkey" aria-labelledby="passkey-heading" data-passkey="get" data-passkey-options={props.optionsJson}>
      <h2 id="passkey-heading">{props.heading}</h2>
      <form method="post">
        <CsrfInput token={props.csrfToken} />
        {props.next ? <input type="hidden" name="next" value={props.next} /> : null}
        {props.held ? <input type="hidden" name={props.held.name} value={props.held.value} /> : null}
        <input type="hidden" name="intent" value="passkey" />
        <input type="hidden" name="response" data-passkey-response="" />
        <button type="button" className="console-button" data-passkey-start="" hidden>
          Use a passkey
        </button>
      </form>
      <p className="console-hint" data-passkey-status="" role="status" aria-live="polite" />
      <p data-passkey-nojs="">{props.noScript}</p>
      <PasskeyScript />
    </section>
  );
}

/** "Add a passkey": a name, then the browser makes the passkey and the form posts it. */
export function AddPasskey(props: { optionsJson: string; csrfToken: string; nameError?: string; name?: string; children?: ReactNode }) {
  const describedBy = ["field-passkey-name-hint", props.nameError ? "field-passkey-name-error" : null].filter(Boolean).join(" ");
  return (
    <section className="console-passkey" aria-labelledby="add-passkey-heading" data-passkey="create" data-passkey-options={props.optionsJson}>
      <h2 id="add-passkey-heading">Add a passkey</h2>
      {props.children}
      <p data-passkey-nojs="">Adding a passkey needs JavaScript, which is off in this browser. You can still sign in with the code from your app or a recovery code.</p>
      <form method="post" data-passkey-js="" hidden>
        <CsrfInput token={props.csrfToken} />
        <input type="hidden" name="intent" value="add" />
        <input type="hidden" name="response" data-passkey-response="" />
        <div className={props.nameError ? "console-field console-field--invalid" : "console-field"}>
          <label htmlFor="field-passkey-name">Name of this passkey</label>
          <p id="field-passkey-name-hint" className="console-hint">
            So you can tell your passkeys apart, for example &ldquo;Office laptop&rdquo; or &ldquo;Phone&rdquo;. At most 60 characters.
          </p>
          <input id="field-passkey-name" name="name" type="text" maxLength={60} defaultValue={props.name} aria-invalid={props.nameError ? true : undefined} aria-describedby={describedBy} />
          {props.nameError ? (
            <p id="field-passkey-name-error" className="console-error">
              {props.nameError}
            </p>
          ) : null}
        </div>
        <button type="submit" className="console-button" data-passkey-start="" hidden>
          Add a passkey
        </button>
      </form>
      <p className="console-hint" data-passkey-status="" role="status" aria-live="polite" />
      <PasskeyScript />
    </section>
  );
}
