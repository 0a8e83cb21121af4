import type { Route } from "./+types/media.$file";
import { notFound } from "~/services/web/responses.server";
import { readMediaVariant } from "~/services/content/media.server";

/**
 * An uploaded image's stored size (docs/decisions/320-image-uploads.md, 321): the name carries the
 * SHA-256 of the file and the width, so its bytes never change and browsers and CDNs keep it a year.
 * Every server process answers it from the database.
 */
export async function loader({ params, context }: Route.LoaderArgs) {
  const found = await readMediaVariant(context.db, params.file);
  if (!found) throw notFound();
  return new Response(new Uint8Array(found.bytes), {
    headers: {
      "Content-Type": found.contentType,
      "Content-Length": String(found.bytes.byteLength),
      "Cache-Control": "public, max-age=31536000, immutable",
      "X-Content-Type-Options": "nosniff",
      "Content-Disposition": "inline",
    },
  });
}
