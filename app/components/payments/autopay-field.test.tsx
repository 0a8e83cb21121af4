import { describe, expect, it } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import { createElement } from "react";
import { autopayChoice, FORCED_AUTOPAY_REASON } from "~/domain/rental/autopay-choice";
import { parseAccountGlobalSettings } from "~/domain/shared/account-settings";
import { AutopayField } from "./autopay-field";

describe("AutopayField", () => {
  it("forced: a ticked, disabled box with the reason next to it (read with the box), and the value sent", () => {
    const field = { name: "autopay", id: "rent-pay-autopay", initialValue: "on", key: undefined, errorId: "e", descriptionId: "d", valid: true } as never;
    const html = renderToStaticMarkup(
      createElement(AutopayField, { choice: autopayChoice(parseAccountGlobalSettings({ is_force_autopay: true })), field, terms: "Terms." }),
    );
    expect(html).toContain('<input type="hidden" name="autopay" value="on"/>');
    expect(html).toContain('<input type="checkbox" id="rent-pay-autopay" disabled="" aria-describedby="autopay-reason autopay-terms" data-testid="autopay-box" checked=""/>');
    expect(html).toContain(`<p id="autopay-reason" class="field__hint field__hint--strong" data-testid="autopay-reason">${FORCED_AUTOPAY_REASON}</p>`);
  });

  it("not offered: nothing", () => {
    const field = { name: "autopay", id: "x" } as never;
    expect(renderToStaticMarkup(createElement(AutopayField, { choice: autopayChoice(parseAccountGlobalSettings({ is_autopay_enabled: false })), field, terms: "" }))).toBe("");
  });
});
