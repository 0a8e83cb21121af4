import { getFormProps, getInputProps, getTextareaProps, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/move-out";
import { routeMeta } from "~/components/ui/route-meta";
import { ErrorSummary, summaryErrors } from "~/components/ui/error-summary";
import { CsrfInput, Field, FormErrors, SubmitButton } from "~/components/ui/form";
import { CallOffice } from "~/components/portal/parts";
import { moveOutSchema } from "~/domain/portal/forms";
import { formatDate } from "~/domain/shared/calendar";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { portalHeaders, portalRouteHeaders } from "~/services/portal/context.server";
import { StorageValidationError } from "~/storage-software/errors";
import { signedInTenant, tenantUnit } from "~/services/portal/access.server";
import { keepFormThroughOutage, outageResult } from "~/services/web/form-outage.server";
import { giveMoveOutNotice } from "~/services/desk/move-outs.server";

export const handle = { enhanceForms: true };

export async function loader({ request, context }: Route.LoaderArgs) {
  const unit = tenantUnit(context);
  const csrf = await getCsrfToken(request);
  return data(
    {
      csrfToken: csrf.token,
      enabled: unit.settings.is_move_out_enabled && unit.lease.status === "active",
      sent: new URL(request.url).searchParams.get("sent") === "1",
      confirmation: unit.location.moveOutConfirmationMessage,
      phone: unit.location.phoneNumber,
      locationName: unit.location.name,
      lease: unit.lease,
      today: unit.today,
    },
    { headers: portalHeaders(csrf.setCookie) },
  );
}

export const action = keepFormThroughOutage(moveOutAction, (form) => ({ result: outageResult(form) }));

async function moveOutAction({ request, context }: Route.ActionArgs) {
  const ctx = signedInTenant(context);
  const unit = tenantUnit(context);
  const formData = await request.formData();
  await validateCsrf(request, formData);
  const self = `/customer-portal/units/${unit.lease.leaseId}/move-out`;
  if (!unit.settings.is_move_out_enabled) throw redirect(self, 303);
  const submission = parseWithZod(formData, { schema: moveOutSchema(unit.today) });
  if (submission.status !== "success") return data({ result: submission.reply() }, { status: 400, headers: portalHeaders() });
  try {
    await giveMoveOutNotice(context.db, unit.storage, {
      tenantId: ctx.session.tenantId,
      leaseId: unit.lease.leaseId,
      unitName: unit.lease.unitName,
      locationId: unit.location.id,
      moveOutDate: submission.value.move_out_date,
      reason: submission.value.reason || null,
      now: ctx.now,
    });
  } catch (error) {
    if (error instanceof StorageValidationError) return data({ result: submission.reply({ formErrors: [error.message] }) }, { status: 400, headers: portalHeaders() });
    throw error;
  }
  throw redirect(`${self}?sent=1`, { status: 303, headers: portalHeaders() });
}

export const headers: Route.HeadersFunction = portalRouteHeaders;

export const meta: Route.MetaFunction = ({ matches }) =>
  routeMeta(matches, { title: "Move-out notice | Customer Portal", description: "Tell us when you are moving out.", path: "/customer-portal" });

export default function MoveOut({ loaderData, actionData }: Route.ComponentProps) {
  const schema = moveOutSchema(loaderData.today);
  const [form, fields] = useForm({
    id: "move-out",
    lastResult: actionData?.result,
    constraint: getZodConstraint(schema),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  });
  const { lease } = loaderData;
  return (
    <>
      <p>
        <Link to="/customer-portal">← My units</Link>
      </p>
      <h1>Move-out notice</h1>
      <p className="lead">
        Unit {lease.unitName} at {loaderData.locationName}.
      </p>
      {loaderData.sent && lease.moveOutDate ? (
        <div className="alert alert--success" role="status">
          <h2>Move-out date: {formatDate(lease.moveOutDate)}</h2>
          <p>{loaderData.confirmation}</p>
        </div>
      ) : null}
      {!loaderData.enabled ? (
        <CallOffice phone={loaderData.phone}>Move-out notice cannot be given online right now. To tell us you are moving out,</CallOffice>
      ) : loaderData.sent ? null : (
        <Form method="post" {...getFormProps(form)} noValidate className="stack-form">
          <CsrfInput token={loaderData.csrfToken} />
          {actionData ? <ErrorSummary errors={summaryErrors(form.allErrors, (["move_out_date", "reason"] as const).map((n) => fields[n]))} /> : null}
          <FormErrors id={form.errorId} errors={form.errors} />
          {lease.moveOutDate ? <p>You gave notice to move out on {formatDate(lease.moveOutDate)}. You can change the date here.</p> : null}
          <Field label="Move-out date" meta={fields.move_out_date} hint={`Today (${formatDate(loaderData.today)}) or later.`}>
            {(p) => <input {...getInputProps(fields.move_out_date, { type: "date" })} {...p} min={loaderData.today} className="input--short" />}
          </Field>
          <Field label="Reason for moving out" meta={fields.reason} optional>
            {(p) => <textarea {...getTextareaProps(fields.reason)} {...p} rows={3} />}
          </Field>
          <SubmitButton pendingText="Sending…">Give notice</SubmitButton>
        </Form>
      )}
    </>
  );
}
