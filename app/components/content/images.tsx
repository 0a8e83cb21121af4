import { Form } from "react-router";
import type { Image } from "~/db/schema/shared";
import { ALT_MAX, MAX_DIMENSION, MAX_UPLOAD_BYTES, MIN_WIDTH, uploadFieldNames, type ImageFormReply } from "~/domain/content/media";
import { imageSchema } from "~/db/schema/shared";
import { CsrfInput } from "../ui/form";
import { ResponsiveImage } from "../ui/responsive-image";

/**
 * The console's image forms (issue 24, decision 322): an upload form (file, text alternative or
 * "decorative") and a photo list with description, order and remove forms. Plain POST forms
 * (multipart for uploads): they work without JavaScript; each message is shown beside its field and
 * what was typed is kept.
 */

/** What a successful form says after its redirect (`?done=<intent>`). */
const IMAGE_DONE_MESSAGES: Record<string, string> = {
  upload: "The image is in the draft. The site shows it once the changes are published.",
  clear: "The image is removed in the draft.",
  "add-photo": "The photo is in the draft. The site shows it once the changes are published.",
  "update-photo": "The photo's description is saved in the draft.",
  "remove-photo": "The photo is removed in the draft.",
  move: "The new order is saved in the draft.",
};

const ACCEPT_IMAGES = "image/jpeg,image/png,image/webp,image/avif,image/gif";

function errorProps(id: string, error: string | undefined) {
  return error ? { "aria-invalid": true as const, "aria-describedby": `${id}-error` } : {};
}

function FieldError({ id, error }: { id: string; error: string | undefined }) {
  return error ? (
    <p id={`${id}-error`} className="console-error">
      {error}
    </p>
  ) : null;
}

export function DoneMessage({ done }: { done: string | null }) {
  const message = done ? IMAGE_DONE_MESSAGES[done] : undefined;
  return message ? (
    <p className="console-alert console-alert--success" role="status">
      {message}
    </p>
  ) : null;
}

/** An image as it will show, or a note that there is none. */
function ImagePreview({ image, width = 240 }: { image: Image | null; width?: number }) {
  if (!image) return <p className="console-hint">No image.</p>;
  return (
    <figure className="console-image">
      <ResponsiveImage image={image} alt={image.alt} sizes={`${width}px`} />
      <figcaption className="console-hint">{image.alt ? `Description: ${image.alt}` : "Decorative (no description)."}</figcaption>
    </figure>
  );
}

/** The upload form: a file, its text alternative (or "decorative"), and the hidden fields given. */
export function ImageUploadForm(props: {
  csrfToken: string;
  idPrefix: string;
  intent: string;
  target: string;
  hidden?: Record<string, string>;
  submitLabel: string;
  fileLabel: string;
  altHint?: string;
  reply: ImageFormReply | undefined;
}) {
  const mine = props.reply && props.reply.intent === props.intent && props.reply.target === props.target ? props.reply : undefined;
  const e = mine?.errors ?? {};
  const id = props.idPrefix;
  return (
    <Form method="post" encType="multipart/form-data" className="console-upload" aria-labelledby={`${id}-legend`}>
      <CsrfInput token={props.csrfToken} />
      <input type="hidden" name="intent" value={props.intent} />
      <input type="hidden" name="target" value={props.target} />
      {Object.entries(props.hidden ?? {}).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <p id={`${id}-legend`} className="console-legend">
        {props.submitLabel}
      </p>
      {e.form ? (
        <p className="console-alert console-alert--error" role="alert">
          {e.form}
        </p>
      ) : null}
      <UploadFields id={id} fileLabel={props.fileLabel} errors={e} values={mine?.values} pending={mine?.pending ?? null} altHint={props.altHint} required />
      <button type="submit" className="console-button">
        {props.submitLabel}
      </button>
    </Form>
  );
}

/**
 * An upload's fields: a file already received (sent back as `media`, with its preview), the file
 * field with the limits, and the text alternative or "decorative". Inside an upload form of its own,
 * or several in one form (`names` tells them apart: "Add a location", decision 680).
 */
export function UploadFields(props: {
  id: string;
  /** The fields' names where one form has several uploads (default: `file`, `alt`, `decorative`, `media`). */
  names?: ReturnType<typeof uploadFieldNames>;
  fileLabel: string;
  errors: ImageFormReply["errors"];
  values?: { alt: string; decorative: boolean };
  pending: ImageFormReply["pending"];
  altHint?: string;
  /** The file is required (an upload form); optional where the photo itself is. */
  required?: boolean;
}) {
  const { id, errors: e, pending } = props;
  const names = props.names ?? uploadFieldNames();
  return (
    <>
      {pending ? (
        <div className="console-field">
          <input type="hidden" name={names.media} value={pending.src} />
          <p className="console-hint">
            The file {pending.file_name_original ? `“${pending.file_name_original}” ` : ""}is received. {props.required ? "Add its description below and send the form again, or choose another file." : "It is kept: choose another file only to replace it."}
          </p>
          <ImagePreview image={imageSchema.parse({ ...pending, alt: "" })} />
        </div>
      ) : null}
      <div className={e.file ? "console-field console-field--invalid" : "console-field"}>
        <label htmlFor={`${id}-file`}>{props.fileLabel}</label>
        <p id={`${id}-file-hint`} className="console-hint">
          JPEG, PNG, WebP, AVIF or GIF; at most {MAX_UPLOAD_BYTES / 1024 / 1024} MB, {MIN_WIDTH} to {MAX_DIMENSION} pixels wide.
        </p>
        <input
          id={`${id}-file`}
          type="file"
          name={names.file}
          accept={ACCEPT_IMAGES}
          required={props.required && !pending}
          {...errorProps(`${id}-file`, e.file)}
          aria-describedby={e.file ? `${id}-file-error ${id}-file-hint` : `${id}-file-hint`}
        />
        <FieldError id={`${id}-file`} error={e.file} />
      </div>
      <AltFields id={id} names={names} errors={e} values={props.values} hint={props.altHint} />
    </>
  );
}

/** The text alternative and the "decorative" box (shared by the upload and description forms). */
function AltFields({
  id,
  names = uploadFieldNames(),
  errors,
  values,
  hint,
}: {
  id: string;
  names?: { alt: string; decorative: string };
  errors: ImageFormReply["errors"];
  values?: { alt: string; decorative: boolean };
  hint?: string;
}) {
  return (
    <>
      <div className={errors.alt ? "console-field console-field--invalid" : "console-field"}>
        <label htmlFor={`${id}-alt`}>Description for people who cannot see the image</label>
        <p id={`${id}-alt-hint`} className="console-hint">
          {hint ?? "What the photo shows, in a sentence: for example “Wide, well-lit drive-up units”."}
        </p>
        <input
          id={`${id}-alt`}
          name={names.alt}
          type="text"
          maxLength={ALT_MAX}
          defaultValue={values?.alt ?? ""}
          {...errorProps(`${id}-alt`, errors.alt)}
          aria-describedby={errors.alt ? `${id}-alt-error ${id}-alt-hint` : `${id}-alt-hint`}
        />
        <FieldError id={`${id}-alt`} error={errors.alt} />
      </div>
      <div className="console-field">
        <label>
          <input type="checkbox" name={names.decorative} value="1" defaultChecked={values?.decorative ?? false} /> Decorative: it adds nothing a screen-reader user would miss
        </label>
      </div>
    </>
  );
}

/** One image field (a logo, a main image): what it holds, an upload form, and a remove button. */
export function ImageFieldEditor(props: {
  csrfToken: string;
  target: string;
  label: string;
  image: Image | null;
  pending: boolean;
  reply: ImageFormReply | undefined;
  altHint?: string;
  hidden?: Record<string, string>;
}) {
  const id = props.target.replace(/\W/g, "-");
  const clearReply = props.reply?.intent === "clear" && props.reply.target === props.target ? props.reply : undefined;
  return (
    <section aria-labelledby={`${id}-title`} className="console-image-field">
      <h2 id={`${id}-title`}>{props.label}</h2>
      {props.pending ? <p className="console-hint">Changed in the draft (not published yet).</p> : null}
      <ImagePreview image={props.image} />
      {props.image ? (
        <Form method="post" className="console-actions">
          <CsrfInput token={props.csrfToken} />
          <input type="hidden" name="intent" value="clear" />
          <input type="hidden" name="target" value={props.target} />
          {Object.entries(props.hidden ?? {}).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <button type="submit" className="console-button console-button--quiet">
            Remove the {props.label.toLowerCase()}
          </button>
          {clearReply?.errors.form ? (
            <p className="console-error" role="alert">
              {clearReply.errors.form}
            </p>
          ) : null}
        </Form>
      ) : null}
      <ImageUploadForm
        csrfToken={props.csrfToken}
        idPrefix={id}
        intent="upload"
        target={props.target}
        hidden={props.hidden}
        submitLabel={props.image ? `Replace the ${props.label.toLowerCase()}` : `Upload the ${props.label.toLowerCase()}`}
        fileLabel="Image file"
        altHint={props.altHint}
        reply={props.reply}
      />
    </section>
  );
}

/** The photo list: each photo with its description form, order buttons and remove button. */
export function PhotoList(props: { csrfToken: string; photos: Array<{ ref: string; image: Image; pending: boolean }>; reply: ImageFormReply | undefined; label: string }) {
  if (!props.photos.length) return <p>No photos yet.</p>;
  return (
    <ol className="console-photos" aria-label={props.label}>
      {props.photos.map((p, i) => {
        const id = `photo-${i}`;
        const mine = props.reply && props.reply.target === p.ref ? props.reply : undefined;
        const e = mine?.errors ?? {};
        const values = mine?.intent === "update-photo" ? mine.values : { alt: p.image.alt, title: p.image.title ?? "", decorative: false };
        return (
          <li key={p.ref} className="console-photo">
            <ImagePreview image={p.image} />
            {p.pending ? <p className="console-hint">Changed in the draft (not published yet).</p> : null}
            {e.form ? (
              <p className="console-alert console-alert--error" role="alert">
                {e.form}
              </p>
            ) : null}
            <Form method="post">
              <CsrfInput token={props.csrfToken} />
              <input type="hidden" name="intent" value="update-photo" />
              <input type="hidden" name="target" value={p.ref} />
              <input type="hidden" name="baseAlt" value={p.image.alt} />
              <input type="hidden" name="baseTitle" value={p.image.title ?? ""} />
              <AltFields id={id} errors={e} values={values} />
              <div className={e.title ? "console-field console-field--invalid" : "console-field"}>
                <label htmlFor={`${id}-title`}>Caption (optional)</label>
                <input id={`${id}-title`} name="title" type="text" maxLength={200} defaultValue={values.title} {...errorProps(`${id}-title`, e.title)} />
                <FieldError id={`${id}-title`} error={e.title} />
              </div>
              <button type="submit" className="console-button">
                Save the description of photo {i + 1}
              </button>
            </Form>
            <div className="console-actions">
              {i > 0 ? <PhotoButton csrfToken={props.csrfToken} intent="move" target={p.ref} extra={{ direction: "up" }} label={`Move photo ${i + 1} up`} /> : null}
              {i < props.photos.length - 1 ? <PhotoButton csrfToken={props.csrfToken} intent="move" target={p.ref} extra={{ direction: "down" }} label={`Move photo ${i + 1} down`} /> : null}
              <PhotoButton csrfToken={props.csrfToken} intent="remove-photo" target={p.ref} label={`Remove photo ${i + 1}`} danger />
            </div>
          </li>
        );
      })}
    </ol>
  );
}

function PhotoButton(props: { csrfToken: string; intent: string; target: string; extra?: Record<string, string>; label: string; danger?: boolean }) {
  return (
    <Form method="post">
      <CsrfInput token={props.csrfToken} />
      <input type="hidden" name="intent" value={props.intent} />
      <input type="hidden" name="target" value={props.target} />
      {Object.entries(props.extra ?? {}).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <button type="submit" className={props.danger ? "console-button console-button--danger" : "console-button console-button--quiet"}>
        {props.label}
      </button>
    </Form>
  );
}
