import type { Image } from "~/db/schema/shared";

/** An operator image with its intrinsic size (no layout shift), lazy unless it is above the fold. */
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
  const img = (
    <img
      src={image.src}
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
  if (!image.src_webp) return img;
  return (
    <picture>
      <source srcSet={image.src_webp} type="image/webp" />
      {img}
    </picture>
  );
}
