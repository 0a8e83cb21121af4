/**
 * A staff member's browser without JavaScript, over real HTTP: the member's cookies (session and CSRF,
 * one jar), forms posted as they are, redirects seen (not followed).
 */
import { getCsrfToken } from "~/services/web/csrf.server";
import type { TestStaffMember } from "./staff-fixtures";

type StaffAnswer = { status: number; location: string | null; body: string };

export async function staffBrowser(origin: string, member: TestStaffMember) {
  const minted = await getCsrfToken(new Request(`${origin}/admin`, { headers: { Cookie: member.cookie } }));
  const cookie = [member.cookie, minted.setCookie?.split(";")[0]].filter(Boolean).join("; ");
  const send = async (path: string, body?: URLSearchParams): Promise<StaffAnswer> => {
    const res = await fetch(origin + path, {
      method: body ? "POST" : "GET",
      redirect: "manual",
      headers: { Cookie: cookie, ...(body ? { "Content-Type": "application/x-www-form-urlencoded", Referer: origin + path } : {}) },
      body,
    });
    return { status: res.status, location: res.headers.get("Location"), body: await res.text() };
  };
  return { token: minted.token, send };
}
