import { Form } from "react-router";
import type { GoLiveItem, GoLiveSuggestions } from "~/db/schema";
import type { GoLivePanel } from "~/services/content/go-live.server";
import { CsrfInput, FormMessage, TextField } from "../console/shell";
import { SubmitButton } from "../ui/form";

/**
 * A SiteLink location's go-live check on its settings page (issue 40, decision 681): its state, its
 * settings (never a secret), the latest check with each item's result in words and what to do, the
 * settings it proposes, and the form that runs it (owners). Plain POST forms: they work without
 * JavaScript; with it the buttons show that the check is under way.
 */

/** The page's answer to a refused go-live form: the message, beside its field when it has one. */
export interface GoLiveRefusal {
  message: string;
  field?: "tenantId" | "unitId";
  values: { tenantId: string; unitId: string };
}

export const GO_LIVE_DONE: Record<string, string> = {
  "go-live-checked": "The go-live check has run: its result is below.",
  "go-live-settings": "The settings are saved. Run the go-live check again: the location is live only once a check passes with them.",
};

const RESULT_WORDS: Record<GoLiveItem["result"], string> = {
  passed: "Passed",
  "passed with a warning": "Passed, with a warning",
  failed: "Failed",
  "not checked": "Not checked",
  "not sent": "Not sent",
};

const BRANDS: Array<[string, string]> = [
  ["visa", "Visa"],
  ["mastercard", "Master Card"],
  ["discover", "Discover"],
  ["amex", "American Express"],
];

function suggestionWords(s: GoLiveSuggestions): string[] {
  const cards = s.cardTypeIds ?? {};
  return [
    ...(s.cardTypeIds ? [`card types ${BRANDS.filter(([b]) => b in cards).map(([b, label]) => `${label} = ${cards[b]}`).join(", ")}`] : []),
    ...(s.payMethodIds ? [`pay method card ${s.payMethodIds.card}, cash ${s.payMethodIds.cash}, check ${s.payMethodIds.check}`] : []),
  ];
}

/** One of the check's optional SiteLink ids (a tenant's, a unit's): numeric, kept and told beside itself when refused. */
function IdField({ name, label, hint, refused }: { name: "tenantId" | "unitId"; label: string; hint: string; refused: GoLiveRefusal | null }) {
  return (
    <TextField
      name={name}
      label={label}
      hint={hint}
      inputMode="numeric"
      autoComplete="off"
      defaultValue={refused?.values[name] ?? ""}
      error={refused?.field === name ? refused.message : undefined}
    />
  );
}

export function GoLiveSection({ panel, csrfToken, done, refused }: { panel: GoLivePanel; csrfToken: string; done: string | null; refused: GoLiveRefusal | null }) {
  const latest = panel.latest;
  const proposals = latest ? suggestionWords(latest.suggested) : [];
  return (
    <section aria-labelledby="go-live" id="go-live-check" className="console-section">
      <h2 id="go-live">SiteLink go-live check</h2>
      <p data-testid="go-live-state">{panel.state.words}</p>
      <FormMessage tone="success" message={done ? GO_LIVE_DONE[done] : null} />
      {refused && !refused.field ? <FormMessage message={refused.message} /> : null}
      <dl className="console-facts">
        <dt>Web service address</dt>
        <dd>{panel.settings.endpoint}</dd>
        <dt>Corp code and location code</dt>
        <dd>
          {panel.settings.corpCode}, {panel.settings.locationCode}
        </dd>
        <dt>Cards</dt>
        <dd>{panel.settings.cards}</dd>
        <dt>Card types</dt>
        <dd>{panel.settings.cardTypes}</dd>
        <dt>Pay-method ids sent to SiteLink</dt>
        <dd>{panel.settings.payMethod}</dd>
      </dl>

      {latest ? (
        <>
          <h3 id="go-live-latest">
            The latest check: {latest.when}, by {latest.by}:{" "}
            {latest.unreachable ? "SiteLink could not be reached" : latest.passed ? "passed" : "did not pass"}
          </h3>
          {latest.unreachable ? <p>Nothing was checked, so the location&apos;s go-live state is as the check before made it.</p> : null}
          {latest.items.length ? (
            <ol className="console-checklist" aria-labelledby="go-live-latest">
              {latest.items.map((item, i) => (
                <li key={`${i}:${item.label}`} data-result={item.result}>
                  <p>
                    <strong>{item.label}</strong>: {RESULT_WORDS[item.result]}
                  </p>
                  {item.fix ? <p>What to do: {item.fix}</p> : null}
                  <details>
                    <summary>Details</summary>
                    <ul>
                      {item.details.map((d, j) => (
                        <li key={j}>{d}</li>
                      ))}
                    </ul>
                  </details>
                </li>
              ))}
            </ol>
          ) : (
            <ul>
              {latest.summary.map((line, j) => (
                <li key={j}>{line}</li>
              ))}
            </ul>
          )}
          {panel.canRun && proposals.length ? (
            <Form method="post" action={`/admin/content/locations/${panel.locationId}/settings`} className="console-actions">
              <CsrfInput token={csrfToken} />
              <input type="hidden" name="intent" value="use-go-live-suggestions" />
              <p>The check proposes what this SiteLink site uses: {proposals.join("; ")}.</p>
              <SubmitButton className="console-button" pendingText="Saving…">
                Use these settings
              </SubmitButton>
            </Form>
          ) : null}
        </>
      ) : (
        <p>No go-live check has run for this location yet.</p>
      )}

      {panel.canRun ? (
        <Form method="post" action={`/admin/content/locations/${panel.locationId}/settings`} aria-labelledby="go-live-run">
          <CsrfInput token={csrfToken} />
          <input type="hidden" name="intent" value="go-live-check" />
          <h3 id="go-live-run">Run the go-live check</h3>
          <p className="console-hint">
            It reads what the website uses from this location&apos;s SiteLink, makes its own test tenant once (“Gatehouse Verify”), and moves it in once in SiteLink&apos;s
            test mode. It takes up to a minute.
          </p>
          {panel.testCard ? <p className="console-hint">{panel.testCard}</p> : null}
          <IdField
            name="tenantId"
            label="A tenant to read (optional)"
            hint="The SiteLink TenantID of a tenant with a rental at this site: the check reads their records, and never changes them. Needed where SiteLink's test mode keeps no rental."
            refused={refused}
          />
          <IdField name="unitId" label="A unit to use (optional)" hint="The SiteLink UnitID of a free unit for the test move-in. Empty: the first free unit." refused={refused} />
          <SubmitButton className="console-button" pendingText="Checking with SiteLink…">
            Run the go-live check
          </SubmitButton>
        </Form>
      ) : (
        <p>An owner runs the go-live check.</p>
      )}
    </section>
  );
}
