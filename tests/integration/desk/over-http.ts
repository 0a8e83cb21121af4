/**
 * The desk's tenant page over real HTTP (issue 39): the app server of tests/integration/support, a
 * signed-in member's session cookie, and form posts carrying the CSRF token of that session.
 */
import { CSRF_FIELD, getCsrfToken } from "~/services/web/csrf.server";
import type { AppServer } from "../support/app-server";
import type { TestStaffMember } from "../support/staff-fixtures";

interface Page {
  status: number;
  location: string | null;
  body: string;
}

export async function getPage(app: AppServer, path: string, member: TestStaffMember): Promise<Page> {
  const res = await fetch(app.origin + path, { redirect: "manual", headers: { Cookie: member.cookie } });
  return { status: res.status, location: res.headers.get("Location"), body: await res.text() };
}

/** A form post as the browser sends it without JavaScript (the page answers with a document or a redirect). */
export async function postForm(app: AppServer, path: string, member: TestStaffMember, fields: Record<string, string>): Promise<Page> {
  const minted = await getCsrfToken(new Request(app.origin + path, { headers: { Cookie: member.cookie } }));
  const cookies = [member.cookie, minted.setCookie?.split(";")[0]].filter(Boolean).join("; ");
  const res = await fetch(app.origin + path, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookies, Referer: app.origin + path },
    body: new URLSearchParams({ [CSRF_FIELD]: minted.token, ...fields }),
  });
  return { status: res.status, location: res.headers.get("Location"), body: await res.text() };
}

/** The page's text without tags (for messages that the markup splits). */
export const textOf = (html: string) =>
  html
    .replace(/<script[\s\S]*?<\/script>/g, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");
