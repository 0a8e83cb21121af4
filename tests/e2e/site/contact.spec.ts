import { expect, test } from "@playwright/test";
import { ContactFormPage, isNoJs } from "../support/site";
import { COMING_SOON_LOCATIONS } from "../support/seed-facts";

// Issue 2: the contact form shows field errors beside the fields for bad input (typed values kept)
// and a confirmation for good input, with JavaScript enabled (validated in the browser, enhanced
// submit) and disabled (plain HTML form, server validation, post/redirect/get).

test("bad input: errors beside the fields, typed values kept, nothing sent", async ({ page }, testInfo) => {
  const contact = new ContactFormPage(page);
  await contact.layout.goto("/contact");
  await contact.fill({ name: "Pat Jones", email: "pat.example.com", phone: "12345", message: "" });
  await contact.submit();

  await contact.expectFieldError("Email address", /valid email address/);
  await contact.expectFieldError(/^Phone number/, /10-digit phone number/);
  await contact.expectFieldError(/^Message/, "Enter your message.");
  await contact.expectFieldValid("Your name");
  await expect(contact.field("Your name")).toHaveValue("Pat Jones");
  await expect(contact.field("Email address")).toHaveValue("pat.example.com");
  await expect(contact.field(/^Phone number/)).toHaveValue("12345");
  await expect(page.getByText("your message has been sent")).toHaveCount(0);
  if (isNoJs(testInfo)) {
    // Without JavaScript the server's answer opens on a focused summary linking to each field.
    const summary = page.getByRole("alert").filter({ hasText: "There is a problem" });
    await expect(summary).toBeFocused();
    const emailId = await contact.field("Email address").getAttribute("id");
    await expect(summary.getByRole("link", { name: /valid email address/ })).toHaveAttribute("href", `#${emailId}`);
    await expect(summary.getByRole("link")).toHaveCount(3);
  } else {
    // With JavaScript the first field in error gets focus.
    await expect(contact.field("Email address")).toBeFocused();
  }

  // Correcting the input sends it.
  await contact.fill({ email: "pat@example.com", phone: "(910) 555-0199", message: "Do you have 10x10 units?" });
  await contact.submit();
  await expect(page.getByRole("status")).toContainText("Thank you, your message has been sent.");
  await expect(page).toHaveURL(/\/contact\?sent=1$/);
});

test("an empty form names every required field", async ({ page }) => {
  const contact = new ContactFormPage(page);
  await contact.layout.goto("/contact");
  await contact.submit();
  await contact.expectFieldError("Your name", "Enter your name.");
  await contact.expectFieldError("Email address", "Enter your email address.");
  await contact.expectFieldError(/^Message/, "Enter your message.");
  await contact.expectFieldValid(/^Phone number/);
});

test("good input: a clear confirmation (post/redirect/get)", async ({ page }) => {
  const contact = new ContactFormPage(page);
  await contact.layout.goto("/contact");
  await contact.fill({ name: "Sam Lee", email: `sam+${Date.now()}@example.com`, message: "What are your office hours on Saturday?" });
  await contact.form.getByLabel(/^Location/).selectOption({ label: "Jacksonville" });
  await contact.submit();
  await expect(page.getByRole("status")).toContainText("Thank you, your message has been sent.");
  await expect(page).toHaveURL(/\/contact\?sent=1$/);
  // Reloading the confirmation does not send again: it is a GET page.
  const reload = await page.reload();
  expect(reload?.status()).toBe(200);
  expect(reload?.request().method()).toBe("GET");
});

test("coming-soon notify form: errors beside fields, then a confirmation", async ({ page }) => {
  const location = COMING_SOON_LOCATIONS[0]!;
  const notify = new ContactFormPage(page);
  await notify.layout.goto(location.path);
  await notify.fill({ name: "", email: "nope" });
  await notify.submit("Notify me");
  await notify.expectFieldError("Your name", "Enter your name.");
  await notify.expectFieldError("Email address", /valid email address/);
  await expect(notify.field("Email address")).toHaveValue("nope");

  await notify.fill({ name: "Jo Ray", email: `jo+${Date.now()}@example.com` });
  await notify.submit("Notify me");
  await expect(page.getByRole("status")).toContainText(`as soon as units at ${location.name} are ready`);
});
