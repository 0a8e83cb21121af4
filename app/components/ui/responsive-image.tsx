import type { Image } from "~/db/schema/shared";
import { mediaSrcSet } from "~/domain/content/media";

/**
 * An operator image with its intrinsic size (no layout shift), lazy unless it is above the fold. An
 * uploaded image (stored as WebP in several widths, docs/decisions/320-image-uploads.md) gets a
 * `srcset` of its sizes, so the browser fetches the one `sizes` calls for; other images (the seeded
 * files) keep their one file, with their WebP copy as a <picture> source when they have one.
 */
export function ResponsiveImage({
  image,
  alt,
  eager = false,
  className,
  sizes,
}: {
  /** An Image record (spec §3); only these fields are read. */
  image: Pick<Image, "src" | "alt" | "width" | "height" | "src_webp">;
  alt?: string;
  eager?: boolean;
  className?: string;
  sizes?: string;
}) {
  const srcSet = mediaSrcSet(image);
  const img = (
    <img
      src={image.src}
      srcSet={srcSet ?? undefined}
      alt={alt ?? image.alt}
      width={image.width ?? undefined}
      height={image.height ?? undefined}
      loading={eager ? "eager" : "lazy"}
      decoding="async"
      className={className}
      sizes={sizes}
      {...(eager ? { fetchPriority: "high" as const } : {})}
    />
  );
  if (srcSet || !image.src_webp) return img;
  return (
    <picture>
      <source srcSet={image.src_webp} type="image/webp" />
      {img}
    </picture>
  );
}
