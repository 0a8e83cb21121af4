/**
 * The loader and action every `/admin/content/*` form page shares (issue 24, decision 360), so a
 * route module is its page's service functions and its component:
 *
 * - loader: the signed-in member, `content.edit`, an owner for account-wide pages (decision 303),
 *   the page (404 when the record is missing or outside the member's locations), the CSRF token,
 *   `?done=` after a save;
 * - action: the same checks, the CSRF token, then `submitContentForm` over the page's edit targets
 *   (or the page's own `save` for a form it handles itself), answered by `answerContentForm`.
 */
import { data, type RouterContextProvider } from "react-router";
import type { Database } from "~/db/client.server";
import { now as clockNow } from "~/platform/clock.server";
import { consoleHeaders } from "../console/headers.server";
import { submitContentForm, type ContentFormOutcome, type EditTarget } from "./editor.server";
import { answerContentForm, doneOf, requireAccountWide } from "./pages.server";
import { getCsrfToken, validateCsrf } from "../web/csrf.server";
import { notFound } from "../web/responses.server";
import { requirePermission, signedInStaff, type SignedInStaff } from "../staff/context.server";

interface RouteArgs {
  request: Request;
  params: Readonly<Record<string, string | undefined>>;
  context: Readonly<RouterContextProvider>;
}

type Targets = Record<string, EditTarget>;

interface ContentRouteSpec<P extends object, K extends string> {
  /** The route parameter naming the page's record (`locationId`, `unitTypeId`); absent: an account-wide page (owners). */
  param?: K;
  /** The page's data; null when the record is not there or outside the member's locations. */
  page: (db: Database, staff: SignedInStaff, id: number) => Promise<P | null>;
  /** The edits the page's forms may make. */
  targets: (db: Database, staff: SignedInStaff, id: number) => Targets | Promise<Targets>;
  /** A form the page saves itself (null: the form goes to `submitContentForm`). */
  save?: (db: Database, staff: SignedInStaff, form: FormData, now: Date) => Promise<ContentFormOutcome | null>;
}

/** The loader and action of a content page (see the module comment). */
export function contentRoute<P extends object, K extends string = never>(spec: ContentRouteSpec<P, K>) {
  /** The checks both share; the record's id (NaN on account-wide pages, which name none). */
  function authorise({ params, context }: RouteArgs): { staff: SignedInStaff; id: number } {
    const staff = signedInStaff(context);
    requirePermission(staff, "content.edit");
    if (spec.param === undefined) requireAccountWide(staff);
    return { staff, id: spec.param === undefined ? Number.NaN : Number(params[spec.param]) };
  }
  async function pageOf(db: Database, staff: SignedInStaff, id: number): Promise<P | null> {
    if (spec.param !== undefined && !Number.isInteger(id)) return null;
    return spec.page(db, staff, id);
  }

  async function loader(args: RouteArgs) {
    const { staff, id } = authorise(args);
    const page = await pageOf(args.context.db, staff, id);
    if (!page) throw notFound(consoleHeaders());
    const csrf = await getCsrfToken(args.request);
    const named = (spec.param === undefined ? {} : { [spec.param]: id }) as Record<K, number>;
    return data({ ...page, ...named, csrfToken: csrf.token, done: doneOf(args.request) }, { headers: consoleHeaders(csrf.setCookie) });
  }

  async function action(args: RouteArgs) {
    const { staff, id } = authorise(args);
    const { db } = args.context;
    const form = await args.request.formData();
    await validateCsrf(args.request, form);
    if (spec.param !== undefined && !(await pageOf(db, staff, id))) throw notFound(consoleHeaders());
    const now = clockNow();
    const outcome = (await spec.save?.(db, staff, form, now)) ?? (await submitContentForm(db, staff, await spec.targets(db, staff, id), form, now));
    return answerContentForm(outcome, args.request);
  }

  return { loader, action };
}
